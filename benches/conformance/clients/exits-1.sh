#!/bin/sh
# A client broken on purpose: it fails before it connects.
echo "cannot start" >&2
exit 1
