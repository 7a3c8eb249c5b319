#!/usr/bin/env bash
# Incremental mirroring: from the catalog a disconnected cluster already has (OLD) to a newer one
# (NEW), plan the copy of only the images NEW adds. The olmcat form of "Updating an Operator
# catalog image" for restricted networks. Run with --help for usage.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: catalog-delta.sh [OPTIONS] OLD NEW DEST WORKDIR

  1. olmcat diff OLD NEW --emit-delta WORKDIR/delta    (what NEW adds or changes, as an FBC;
                                                        the report goes to WORKDIR/diff.txt)
  2. olmcat mirror plan WORKDIR/delta DEST WORKDIR/manifests --already-mirrored OLD
                                      (mapping.txt and policies for the images OLD lacks)

then print the oc commands to run. OLD and NEW are any catalog form (FBC, SQLite index DB,
package-manifest tree, index image archive).

Arguments:
  DEST      mirror registry[:port][/namespace]
  WORKDIR   created if missing; delta/ and manifests/ must not exist in it

Options:
  --index-image REF    the new catalog image as published: mirrored too, and catalogSource.yaml
                       points the existing CatalogSource (same name) at its mirror
  --name NAME          base name of the new policy objects (default: NEW's file name + "-delta"),
                       distinct from the policies already applied so those are not replaced
  --max-components N, --icsp-scope repository|registry   passed to olmcat mirror plan
  -h, --help           this text

Environment: OLMCAT names the olmcat executable (default: olmcat on PATH).
EOF
}

olmcat=${OLMCAT:-olmcat}
plan_args=()
name=""
positional=()
while (($#)); do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --index-image | --max-components | --icsp-scope)
        (($# >= 2)) || { echo "error: $1 needs a value" >&2; exit 2; }
        plan_args+=("$1" "$2"); shift 2 ;;
    --name)
        (($# >= 2)) || { echo "error: $1 needs a value" >&2; exit 2; }
        name=$2; shift 2 ;;
    --) shift; positional+=("$@"); break ;;
    -*) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
    esac
done
if ((${#positional[@]} != 4)); then
    usage >&2
    exit 2
fi
old=${positional[0]} new=${positional[1]} dest=${positional[2]} workdir=${positional[3]}

if ! "$olmcat" diff --help >/dev/null 2>&1; then
    echo "error: this olmcat has no 'diff' command (olmcat diff OLD NEW --emit-delta OUT)" >&2
    exit 1
fi
if [[ -z $name ]]; then
    # Policies already on the cluster keep their names; the delta's get their own.
    base=$(basename "${new%/}")
    base=${base%%.*}
    base=$(printf '%s' "$base" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9-' '-')
    name=${base:-catalog}-delta
fi

mkdir -p "$workdir"
# diff exits 1 when the catalogs differ (the usual case here) and 2 on trouble.
status=0
"$olmcat" diff --summary "$old" "$new" --emit-delta "$workdir/delta" >"$workdir/diff.txt" || status=$?
if ((status > 1)); then
    echo "error: olmcat diff failed (exit status $status)" >&2
    exit "$status"
fi
if [[ ! -d $workdir/delta ]]; then
    echo "NEW adds nothing to OLD: nothing to mirror." >&2
    exit 0
fi
"$olmcat" mirror plan -q --name "$name" --already-mirrored "$old" \
    ${plan_args[@]+"${plan_args[@]}"} "$workdir/delta" "$dest" "$workdir/manifests"

manifests=$workdir/manifests
count=0
if [[ -f $manifests/mapping.txt ]]; then
    count=$(wc -l <"$manifests/mapping.txt")
fi
echo "$(tail -n 1 "$workdir/diff.txt") (report: $workdir/diff.txt)"
echo "$count images to copy in $manifests/mapping.txt: those $new references and $old does" \
    "not (plus the new catalog image, with --index-image)."
echo
echo "Next steps:"
echo
step=1
if [[ -f $manifests/mapping.txt ]]; then
    echo "$step. Copy the new images to the mirror:"
    echo "   oc image mirror [-a \${REG_CREDS}] --filter-by-os='.*' -f $manifests/mapping.txt"
    step=$((step + 1))
fi
if [[ -f $manifests/imageContentSourcePolicy.yaml || -f $manifests/imageTagMirrorSet.yaml ]]; then
    echo
    echo "$step. Redirect pulls of the new images (the policies applied before stay):"
    if [[ -f $manifests/imageContentSourcePolicy.yaml ]]; then
        echo "   oc apply -f $manifests/imageContentSourcePolicy.yaml" \
            "   # or, on OpenShift 4.13+: oc apply -f $manifests/imageDigestMirrorSet.yaml"
    fi
    if [[ -f $manifests/imageTagMirrorSet.yaml ]]; then
        echo "   oc apply -f $manifests/imageTagMirrorSet.yaml   # OpenShift 4.13+"
    fi
    step=$((step + 1))
fi
if [[ -f $manifests/catalogSource.yaml ]]; then
    echo
    echo "$step. Point the CatalogSource at the new catalog image:"
    echo "   oc apply -f $manifests/catalogSource.yaml"
    if [[ -f $manifests/clusterCatalog.yaml ]]; then
        echo "   oc apply -f $manifests/clusterCatalog.yaml   # OLM v1 (ClusterCatalog), instead of or beside it"
    fi
fi
