#!/bin/sh
# Creates DIR as a git repository holding the payments sample: the base version
# committed on branch main, and the chosen version of a change (buggy: four
# planted bugs; clean: the same change written correctly) copied into the work
# tree, uncommitted and unstaged, ready for `revline review`.
set -eu

usage() {
  echo "usage: $0 DIR buggy|clean" >&2
  exit 2
}

[ $# -eq 2 ] || usage
dir=$1
variant=$2
case $variant in
  buggy | clean) ;;
  *) usage ;;
esac

sample=$(cd "$(dirname "$0")" && pwd)/payments
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
  echo "$0: $dir already exists and is not empty" >&2
  exit 2
fi

mkdir -p "$dir"
cp -R "$sample/base/." "$dir/"
cd "$dir"
# A fixed identity and no signing, so the script works without any git configuration.
git init -q
git symbolic-ref HEAD refs/heads/main
git add -A
git -c user.name="revline sample" -c user.email=sample@revline.invalid -c commit.gpgsign=false \
  commit -q -m "Payments service: base version"
cp -R "$sample/change-$variant/." .
