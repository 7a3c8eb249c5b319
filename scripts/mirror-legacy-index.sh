#!/usr/bin/env bash
# Mirror a legacy (SQLite) index image for a disconnected cluster, without a container runtime
# and without sqlite3: the flow of OpenShift's "Mirroring an Operator catalog image" and
# "Using OLM on restricted networks", as olmcat commands. Run with --help for usage.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: mirror-legacy-index.sh [OPTIONS] INDEX_ARCHIVE DEST WORKDIR

Turn an index image archive (oci-archive / OCI layout / docker-save tar holding an SQLite index)
into everything needed to mirror it:

  1. olmcat migrate sqlite   INDEX_ARCHIVE       -> WORKDIR/catalog    (file-based catalog)
  2. olmcat filter           WORKDIR/catalog     -> WORKDIR/filtered   (only what you keep)
  3. olmcat images --unique  WORKDIR/filtered    -> WORKDIR/images.txt (every image to copy)
  4. olmcat mirror plan      WORKDIR/filtered    -> WORKDIR/manifests  (mapping.txt, ICSP, IDMS,
                                                   ITMS, catalogSource.yaml)

then print the oc commands to run (nothing is pushed or applied by this script).

Arguments:
  INDEX_ARCHIVE  the legacy index image saved to disk
  DEST           mirror registry[:port][/namespace], or file://path
  WORKDIR        created if missing; catalog/, filtered/ and manifests/ must not exist in it

Options (passed to the olmcat command named):
  -p, --package P[:CHANNEL[@RANGE]]   filter: keep only these (repeatable)
      --heads-only                    filter: only the head of each channel
      --min-version V, --max-version V  filter: version bounds
      --drop-deprecated               filter: leave out deprecated packages, channels, bundles
      --index-image REF               mirror plan: the name the filtered catalog image is
                                      published under (needed for catalogSource.yaml)
      --max-components N              mirror plan: path components kept under DEST (default 2)
      --icsp-scope repository|registry  mirror plan: scope of the mirror policies
  -h, --help                          this text

Environment: OLMCAT names the olmcat executable (default: olmcat on PATH).
EOF
}

olmcat=${OLMCAT:-olmcat}
filter_args=()
plan_args=()
index_image=""
positional=()
while (($#)); do
    case $1 in
    -h | --help) usage; exit 0 ;;
    -p | --package | --min-version | --max-version)
        (($# >= 2)) || { echo "error: $1 needs a value" >&2; exit 2; }
        filter_args+=("$1" "$2"); shift 2 ;;
    --heads-only | --drop-deprecated) filter_args+=("$1"); shift ;;
    --max-components | --icsp-scope)
        (($# >= 2)) || { echo "error: $1 needs a value" >&2; exit 2; }
        plan_args+=("$1" "$2"); shift 2 ;;
    --index-image)
        (($# >= 2)) || { echo "error: $1 needs a value" >&2; exit 2; }
        index_image=$2; plan_args+=("$1" "$2"); shift 2 ;;
    --) shift; positional+=("$@"); break ;;
    -*) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
    esac
done
if ((${#positional[@]} != 3)); then
    usage >&2
    exit 2
fi
archive=${positional[0]} dest=${positional[1]} workdir=${positional[2]}

mkdir -p "$workdir"
# "${arr[@]+...}" keeps empty arrays safe under set -u on older bash.
"$olmcat" migrate sqlite -q "$archive" "$workdir/catalog"
"$olmcat" filter -q ${filter_args[@]+"${filter_args[@]}"} "$workdir/catalog" "$workdir/filtered"
"$olmcat" images --unique "$workdir/filtered" >"$workdir/images.txt"
"$olmcat" mirror plan -q ${plan_args[@]+"${plan_args[@]}"} \
    "$workdir/filtered" "$dest" "$workdir/manifests"

manifests=$workdir/manifests
echo "Catalog filtered into $workdir/filtered; $(wc -l <"$workdir/images.txt") images to mirror" \
    "(listed in $workdir/images.txt)."
echo
echo "Next steps (run them where oc can reach both registries):"
step=1
if [[ -n $index_image ]]; then
    echo
    echo "$step. Build the filtered catalog image and publish it as $index_image, e.g.:"
    echo "   opm generate dockerfile $workdir/filtered"
    echo "   podman build -t $index_image -f $workdir/filtered.Dockerfile $workdir"
    echo "   podman push $index_image"
    step=$((step + 1))
fi
echo
echo "$step. Copy the images to the mirror:"
echo "   oc image mirror [-a \${REG_CREDS}] --filter-by-os='.*' -f $manifests/mapping.txt"
step=$((step + 1))
if [[ -f $manifests/imageContentSourcePolicy.yaml || -f $manifests/imageTagMirrorSet.yaml ]]; then
    echo
    echo "$step. Redirect pulls to the mirror:"
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
    echo "$step. Add the catalog to the cluster:"
    echo "   oc apply -f $manifests/catalogSource.yaml"
    if [[ -f $manifests/clusterCatalog.yaml ]]; then
        echo "   oc apply -f $manifests/clusterCatalog.yaml   # OLM v1 (ClusterCatalog), instead of or beside it"
    fi
else
    echo
    echo "$step. Write a CatalogSource for the catalog image (rerun with --index-image REF to" \
        "have $manifests/catalogSource.yaml written)."
fi
