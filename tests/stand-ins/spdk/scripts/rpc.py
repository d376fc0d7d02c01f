#!/usr/bin/env python3
"""Stand-in rpc.py: -s SOCK bdev_raid_get_bdevs all | bdev_raid_remove_base_bdev NAME |
bdev_nvme_detach_controller CTRL (its namespaces `CTRLn1`... leave the array, as a lost
drive does)."""
import json, sys
a = sys.argv[1:]
sock = a[a.index("-s") + 1]
state_file = sock + ".state.json"
st = json.load(open(state_file))
if "bdev_raid_get_bdevs" in a:
    print(json.dumps([st], indent=2))
elif "bdev_raid_remove_base_bdev" in a:
    name = a[a.index("bdev_raid_remove_base_bdev") + 1]
    for b in st["base_bdevs_list"]:
        if b["name"] == name:
            b["name"], b["is_configured"] = None, False
            st["num_base_bdevs_operational"] -= 1
            st["num_base_bdevs_discovered"] -= 1
    json.dump(st, open(state_file, "w"))
elif "bdev_nvme_detach_controller" in a:
    ctrl = a[a.index("bdev_nvme_detach_controller") + 1]
    for b in st["base_bdevs_list"]:
        n = b["name"] or ""
        if n.startswith(ctrl + "n") and n[len(ctrl) + 1:].isdigit():
            b["name"], b["is_configured"] = None, False
            st["num_base_bdevs_operational"] -= 1
            st["num_base_bdevs_discovered"] -= 1
    json.dump(st, open(state_file, "w"))
else:
    sys.exit("stand-in rpc.py: not supported")
