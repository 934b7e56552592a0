#!/bin/sh
# The image's build steps, in one place: deploy/Dockerfile runs this script, and so does
# test/deploy/image-build.spec.ts on a clean copy of the repository (no Docker needed), so a
# step that would break the image breaks the tests.
#
#   1. install exactly what package-lock.json says (npm ci: fails when it drifted from package.json)
#   2. build every app into dist/
#   3. drop the dev dependencies (what the image ships is node_modules + dist + package.json)
#   4. start every app's entry point from the result far enough to show that it needs only
#      its engines (scripts/check-entry-points.js)
#
# Run from anywhere: sh scripts/build-image.sh. It changes node_modules/ and dist/ in place;
# run it on a copy, not on a work tree whose dev dependencies you still need.
set -eu
cd "$(dirname "$0")/.."
echo "build-image: npm ci"
npm ci --no-audit --no-fund
echo "build-image: npm run build"
npm run build
echo "build-image: npm prune --omit=dev"
npm prune --omit=dev --no-audit --no-fund
echo "build-image: starting every entry point"
node scripts/check-entry-points.js
echo "build-image: done"
