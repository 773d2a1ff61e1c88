#!/bin/sh
# luarocks' build and install steps for rocks/luatorch-scm-1.rockspec, run in the source directory:
#
#   build   LUA LUA_BINDIR          finds cargo and the LuaJIT the modules are for, builds the Lua C
#                                   module (cargo, feature `module`) and `th`, and stages them with
#                                   the Lua files under $CARGO_TARGET_DIR/luarocks-stage
#   install LUADIR LIBDIR BINDIR    copies the stage into the rock's directories; luarocks deploys
#                                   them into the tree from there
#
# Every failure exits non-zero with a line that says what is missing. luarocks then stops and
# deletes the rock's directory, so nothing half-built reaches the tree.
set -eu

die() {
  echo "luatorch: $*" >&2
  exit 1
}

target=${CARGO_TARGET_DIR:-target}
stage=$target/luarocks-stage

# What a Lua interpreter is: "LuaJIT 2.1.0-beta3", "Lua 5.1", ...
lua_version() {
  "$1" -e 'io.write(jit and jit.version or _VERSION)' 2>/dev/null
}

# The LuaJIT 2.1 the modules are built and checked for: $LUAJIT when set, luarocks' own Lua when
# that is LuaJIT, else (luarocks running a Lua 5.1, as Debian's does with lua5.1, whose trees
# LuaJIT shares) the luajit next to it or on PATH.
pick_luajit() {
  lua=$1 lua_bindir=$2
  version=$(lua_version "$lua") || die "cannot run luarocks' Lua interpreter '$lua'"
  case $version in
  "Lua 5.1" | "LuaJIT 2.1"*) ;;
  LuaJIT*) die "luarocks' Lua ($lua) is $version; the modules need LuaJIT 2.1" ;;
  *) die "luarocks is set up for $version ($lua), but the modules are for LuaJIT 2.1 (the Lua 5.1 API): run luarocks --lua-version=5.1" ;;
  esac
  for candidate in "${LUAJIT:-}" "$lua" "$lua_bindir/luajit" luajit; do
    [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 || continue
    case $(lua_version "$candidate") in
    "LuaJIT 2.1"*)
      echo "$candidate"
      return
      ;;
    esac
  done
  die "the modules run in LuaJIT 2.1, and there is none here (luarocks' Lua, $lua, is $version): install it (Debian: apt-get install luajit) or set LUAJIT to it"
}

build() {
  cargo=${CARGO:-cargo}
  command -v "$cargo" >/dev/null 2>&1 ||
    die "cargo ('$cargo') not found: the modules are written in Rust; install Rust 1.88 or newer (https://rustup.rs) and put cargo on PATH, or set CARGO to it"
  luajit=$(pick_luajit "$1" "$2") || exit 1
  # A stage left by an earlier build is never installed by this one.
  rm -rf "$stage"
  echo "luatorch: building the Lua C module for $(lua_version "$luajit") ($luajit)"
  # The library itself, as a cdylib with mlua's `module` feature (no Lua linked in: the host's
  # LuaJIT provides it). A cargo call of its own: `module` and `vendored` exclude each other.
  "$cargo" rustc --locked --release --lib --crate-type cdylib --no-default-features --features module ||
    die "building the Lua C module failed (cargo's messages are above)"
  mkdir -p "$stage/lib/luatorch" "$stage/lua" "$stage/bin"
  cp "$target/release/libluatorch.so" "$stage/lib/luatorch/core.so"
  echo "luatorch: building th and thcluster"
  "$cargo" build --locked --release --bin th --bin thcluster || die "building th failed (cargo's messages are above)"
  cp "$target/release/th" "$stage/bin/th"
  cp "$target/release/thcluster" "$stage/bin/thcluster"
  (cd lua && find . -name '*.lua') | while read -r file; do
    mkdir -p "$stage/lua/${file%/*}"
    cp "lua/$file" "$stage/lua/$file"
  done
  # One Lua file per native module, named by the module itself; loading it here also proves that
  # this LuaJIT loads it.
  "$luajit" rocks/shims.lua "$stage" || die "the built module does not load in $luajit (see above)"
  touch "$stage/complete"
}

install() {
  [ -f "$stage/complete" ] || die "nothing to install: the build step did not finish ($stage)"
  mkdir -p "$1" "$2" "$3"
  cp -R "$stage/lua/." "$1/"
  cp -R "$stage/lib/." "$2/"
  cp "$stage/bin/th" "$3/th"
  cp "$stage/bin/thcluster" "$3/thcluster"
}

case ${1:-} in
build) build "$2" "$3" ;;
install) install "$2" "$3" "$4" ;;
*) die "usage: sh rocks/build.sh build LUA LUA_BINDIR | install LUADIR LIBDIR BINDIR" ;;
esac
