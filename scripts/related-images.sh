#!/usr/bin/env bash
# The related images of a catalog's bundles, as the legacy
#   echo "select * from related_image where operatorbundle_name like 'X%';" | sqlite3 -line DB
# printed them -- but for any catalog form, without sqlite3. Run with --help for usage.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: related-images.sh [OPTIONS] CATALOG

Print the related images of CATALOG's bundles (FBC directory or file, SQLite index DB,
package-manifest tree, or index image archive), one record per image and bundle:

  image = quay.io/example/operator@sha256:...
  operatorbundle_name = example-operator.v1.2.3

Options:
  -b, --bundle PATTERN   only bundles whose name matches PATTERN, with SQL LIKE rules as sqlite3
                         applied them: % is any run of characters, _ one character, ASCII
                         letters match either case (e.g. 'clusterlogging.4.3%')
  -P, --package NAME     only bundles of package NAME
  -f, --format line|tsv  line: sqlite3 -line records (default); tsv: image<TAB>bundle per line
  -h, --help             this text

Environment: OLMCAT names the olmcat executable (default: olmcat on PATH).
EOF
}

olmcat=${OLMCAT:-olmcat}
pattern="%"
package=""
format=line
positional=()
while (($#)); do
    case $1 in
    -h | --help) usage; exit 0 ;;
    -b | --bundle | -P | --package | -f | --format)
        (($# >= 2)) || { echo "error: $1 needs a value" >&2; exit 2; }
        case $1 in
        -b | --bundle) pattern=$2 ;;
        -P | --package) package=$2 ;;
        *) format=$2 ;;
        esac
        shift 2 ;;
    --) shift; positional+=("$@"); break ;;
    -*) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
    esac
done
if ((${#positional[@]} != 1)); then
    usage >&2
    exit 2
fi
case $format in
line | tsv) ;;
*) echo "error: --format must be line or tsv, not $format" >&2; exit 2 ;;
esac

# LIKE -> shell pattern: quote everything, then let % and _ through as * and ?.
glob=""
for ((i = 0; i < ${#pattern}; i++)); do
    char=${pattern:i:1}
    case $char in
    %) glob+="*" ;;
    _) glob+="?" ;;
    *) glob+="$(printf '%q' "$char")" ;;
    esac
done
first=1
previous=""
# olmcat images prints: image, package, bundle, kind (bundle|related), name -- tab-separated,
# sorted by package, bundle, image; one image listed under two names is printed once.
while IFS=$'\t' read -r image pkg bundle kind _; do
    [[ $kind == related ]] || continue
    [[ -z $package || $pkg == "$package" ]] || continue
    [[ $previous != "$image"$'\t'"$bundle" ]] || continue
    previous=$image$'\t'$bundle
    shopt -s nocasematch # LIKE ignores the case of ASCII letters
    # shellcheck disable=SC2053  # $glob is a pattern on purpose
    if [[ $bundle != $glob ]]; then
        shopt -u nocasematch
        continue
    fi
    shopt -u nocasematch
    if [[ $format == tsv ]]; then
        printf '%s\t%s\n' "$image" "$bundle"
    else
        ((first)) || echo
        first=0
        printf 'image = %s\noperatorbundle_name = %s\n' "$image" "$bundle"
    fi
done < <("$olmcat" images --format text "${positional[0]}")
# A failed olmcat behind < <(...) would go unnoticed; wait for it to surface its exit status.
wait $!
