#!/usr/bin/env bash
# The storage procedure's drive steps ("Prepare the drives", "Test Linux software RAID10",
# "Switch to the ADP block bundle"), one command per call, so reprobench can check each
# device right before the command that writes to it.
# Usage: storage-drives.sh discard DEV
#        storage-drives.sh create MD DEV...          (RAID10 over the DEVs, --assume-clean)
#        storage-drives.sh verify MD SYSTEM_DIR      (/proc/mdstat and lsblk, saved)
#        storage-drives.sh stop MD
#        storage-drives.sh zero DEV...
set -u
# lib.sh: beside it when reprobench runs it, one folder up in the source tree.
lib=$(dirname "$0")/lib.sh; [ -f "$lib" ] || lib=$(dirname "$0")/../lib.sh
. "$lib"
step=$1; shift
case $step in
  discard)
    as_root blkdiscard "$1" ;;
  create)
    md=$1; shift
    as_root mdadm --create --verbose "$md" --level=10 --raid-devices=$# "$@" --force --assume-clean ;;
  verify)
    md=$1 sys=$2
    run mkdir -p "$sys"
    run_to "$sys/mdstat.txt" cat /proc/mdstat
    run_to "$sys/lsblk-$(basename "$md").txt" lsblk "$md" ;;
  stop)
    as_root mdadm --stop "$1" ;;
  zero)
    as_root mdadm --zero-superblock "$@" ;;
  *)
    echo "storage-drives.sh: unknown step $step" >&2; exit 2 ;;
esac
