#!/bin/sh
# Packs this checkout as a source rock without the network:
#
#   sh rocks/pack.sh [OUTDIR]    writes OUTDIR/luatorch-scm-1.src.rock (OUTDIR: the current directory)
#
# `luarocks install luatorch-scm-1.src.rock` then builds and installs it on any machine with cargo
# and LuaJIT, fetching nothing itself (cargo takes its crates from crates.io or its own cache).
# What is packed: git's tracked and untracked-but-not-ignored files; without git, everything but
# target/ and .git/.
set -eu

die() {
  echo "luatorch pack: $*" >&2
  exit 1
}

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "${1:-.}" && pwd) || die "no directory ${1:-.}"
command -v luarocks >/dev/null 2>&1 || die "luarocks not found (Debian: apt-get install luarocks)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/luatorch"
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard |
    tar -cf - --null --ignore-failed-read -T - | tar -xf - -C "$work/luatorch"
else
  tar -cf - --exclude=./target --exclude=./.git . | tar -xf - -C "$work/luatorch"
fi
(cd "$work" && tar -czf luatorch-scm-1.tar.gz luatorch)
# The rockspec, its source pointed at that archive; `luarocks pack` puts both into the rock.
sed "s|^   url = .*|   url = \"file://$work/luatorch-scm-1.tar.gz\",\n   dir = \"luatorch\",|" \
  rocks/luatorch-scm-1.rockspec >"$work/luatorch-scm-1.rockspec"
grep -q "file://$work" "$work/luatorch-scm-1.rockspec" || die "rocks/luatorch-scm-1.rockspec has no source url line"
cd "$out"
luarocks pack "$work/luatorch-scm-1.rockspec"
