#!/usr/bin/env python3
"""Writes the topology presets in resources/topologies/ (the same shapes as sim/topology_builders.cpp).

Datasheet numbers are written here; the measured 2 x H200 preset is then refined by
`parascope-cli calibrate resources/calibration/h200x2_p2p.json -o resources/topologies/h200x2.json`
(see docs/accuracy.md for the collective-model fit on top). Run from the repository root:
    python3 scripts/sim/make_presets.py
"""
import json
import os

OUT = os.path.join("resources", "topologies")

H100 = {"model": "NVIDIA H100 80GB HBM3", "sm_count": 132, "hbm_GBps": 3350, "bf16_TFLOPs": 989, "fp32_TFLOPs": 67,
        "memory_GiB": 80, "copy_engine": {"count": 2, "setup_ns": 4000, "rate_GBps": 390},
        # per-SM LD/ST and TMA rates: Hopper SMs, taken over from the 2 x H200 probe (same SM, same NVLink 4)
        "ldst": {"per_sm_GBps": 37.9, "cap_GBps": 365, "per_sm_threads": 1024, "setup_ns": 0},
        "tma": {"per_sm_GBps": 45, "cap_GBps": 380, "per_sm_threads": 128, "setup_ns": 0},
        "multimem": {"per_sm_GBps": 40, "cap_GBps": 420, "per_sm_threads": 1024, "setup_ns": 0},
        "comm_interference": 0.05}
H200 = dict(H100, model="NVIDIA H200", hbm_GBps=4800, memory_GiB=141)
H100_PCIE = dict(H100, model="NVIDIA H100 PCIe", sm_count=114, hbm_GBps=2000, bf16_TFLOPs=756, fp32_TFLOPs=51,
                 copy_engine={"count": 2, "setup_ns": 5000, "rate_GBps": 52},
                 ldst={"per_sm_GBps": 10, "cap_GBps": 50, "per_sm_threads": 1024, "setup_ns": 0},
                 tma={"per_sm_GBps": 12, "cap_GBps": 52, "per_sm_threads": 128, "setup_ns": 0},
                 multimem={"per_sm_GBps": 0, "cap_GBps": 0, "per_sm_threads": 1024, "setup_ns": 0})


def write(name, doc):
    doc = {"schema_version": 1, **doc}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def nvswitch_box(name, desc, calibration, source, gpu, n, bw, lat, multicast):
    nodes = [{"name": "nvswitch", "kind": "nvswitch",
              "switch": {"multicast": multicast, "in_switch_reduction": multicast, "crossbar_GBps": 0}}]
    links = []
    for g in range(n):
        nodes.append({"name": f"gpu{g}", "kind": "gpu", "gpu_index": g})
        links.append({"a": f"gpu{g}", "b": "nvswitch", "medium": "nvlink", "lanes": 18, "bandwidth_GBps": bw,
                      "latency_ns": lat})
    write(name, {"name": name, "description": desc, "calibration": calibration, "calibration_source": source,
                 "gpu_defaults": gpu, "nodes": nodes, "links": links})


def cluster(name, desc, rail):
    nodes, links = [], []
    n_nodes, per = 4, 8
    for h in range(n_nodes):
        p = f"node{h}/"
        nodes.append({"name": p + "nvswitch", "kind": "nvswitch", "host": h,
                      "switch": {"multicast": True, "in_switch_reduction": True, "crossbar_GBps": 0}})
        for i in range(per):
            nodes.append({"name": p + f"gpu{i}", "kind": "gpu", "host": h, "gpu_index": h * per + i})
            links.append({"a": p + f"gpu{i}", "b": p + "nvswitch", "medium": "nvlink", "lanes": 18, "bandwidth_GBps": 450,
                          "latency_ns": 500})
            nodes.append({"name": p + f"nic{i}", "kind": "nic", "host": h, "line_rate_GBps": 50})
            links.append({"a": p + f"gpu{i}", "b": p + f"nic{i}", "medium": "pcie", "bandwidth_GBps": 64, "latency_ns": 500})
    tier = []
    if rail:
        for i in range(per):
            nodes.append({"name": f"rail{i}", "kind": "network_switch", "host": -1})
            tier.append((f"rail{i}", n_nodes * 50))
            for h in range(n_nodes):
                links.append({"a": f"node{h}/nic{i}", "b": f"rail{i}", "medium": "infiniband", "bandwidth_GBps": 50,
                              "latency_ns": 1000})
    else:
        for leaf in range(2):
            nodes.append({"name": f"leaf{leaf}", "kind": "network_switch", "host": -1})
            tier.append((f"leaf{leaf}", 2 * per * 50))
            for h in (2 * leaf, 2 * leaf + 1):
                for i in range(per):
                    links.append({"a": f"node{h}/nic{i}", "b": f"leaf{leaf}", "medium": "infiniband", "bandwidth_GBps": 50,
                                  "latency_ns": 1000})
    spines = 2
    for s in range(spines):
        nodes.append({"name": f"spine{s}", "kind": "network_switch", "host": -1})
        for t, down in tier:
            links.append({"a": t, "b": f"spine{s}", "medium": "infiniband", "bandwidth_GBps": down / spines,
                          "latency_ns": 1000})
    write(name, {"name": name, "description": desc, "calibration": "datasheet",
                 "calibration_source": "NVIDIA HGX H100 and ConnectX-7 (400 Gb/s) datasheets; per-SM rates from the 2 x H200 probe",
                 "gpu_defaults": H100, "nodes": nodes, "links": links})


def main():
    os.makedirs(OUT, exist_ok=True)
    h200x2 = dict(H200, bf16_TFLOPs=695, comm_interference=0.05, sm_copy_GBps=0, kernel_latency_ns=0,
                  ldst={"per_sm_GBps": 38, "cap_GBps": 369, "per_sm_threads": 1024, "setup_ns": 0})
    nvswitch_box("h200x2", "The 2 x H200 NVSwitch machine (NV18, 18 x 26.562 GB/s per direction; NVLS off by policy). "
                 "bf16_TFLOPs is the measured 8192^3 GEMM rate (interference.json), not the datasheet peak.",
                 "measured", "../shared/data/h200x2_probe.md and resources/captures/h200x2_2026-11-30 (see docs/accuracy.md)",
                 h200x2, 2, 478.1, 350, False)
    nvswitch_box("hgx_h100x8", "HGX H100 8-GPU: NVLink 4 (18 links, 450 GB/s per direction) to the NVSwitch chips, NVLS on",
                 "datasheet", "NVIDIA HGX H100 datasheet; per-SM rates from the 2 x H200 probe", H100, 8, 450, 350, True)
    nvswitch_box("hgx_h200x8", "HGX H200 8-GPU: NVLink 4 (18 links, 450 GB/s per direction) to the NVSwitch chips, NVLS on",
                 "datasheet", "NVIDIA HGX H200 datasheet; per-SM rates from the 2 x H200 probe", H200, 8, 450, 350, True)
    nvswitch_box("simgrid_star8", "The SimGrid anchor's platform (../shared/anchors/simgrid_ring): 8 GPUs, one switch, "
                 "split-duplex 450 GB/s links with 500 ns each, nothing else modelled",
                 "datasheet", "synthetic: the anchor's parameters", {"model": "anchor GPU", "sm_count": 132}, 8, 450, 500, False)
    # PCIe-only: 4 PCIe Gen5 switches with 2 GPUs each under one host bridge
    nodes = [{"name": "host_bridge", "kind": "host_bridge"}]
    links = []
    for s in range(4):
        nodes.append({"name": f"pcie_switch{s}", "kind": "pcie_switch"})
        links.append({"a": f"pcie_switch{s}", "b": "host_bridge", "medium": "pcie", "bandwidth_GBps": 64, "latency_ns": 700})
        for k in range(2):
            g = 2 * s + k
            nodes.append({"name": f"gpu{g}", "kind": "gpu", "gpu_index": g})
            links.append({"a": f"gpu{g}", "b": f"pcie_switch{s}", "medium": "pcie", "bandwidth_GBps": 64, "latency_ns": 700})
    write("pcie_h100x8", {"name": "pcie_h100x8", "description": "8 x H100 PCIe without NVLink: 2 GPUs per PCIe Gen5 x16 switch, "
                          "4 switches under one host bridge (x16 uplinks)", "calibration": "datasheet",
                          "calibration_source": "NVIDIA H100 PCIe datasheet; PCIe Gen5 x16 = 64 GB/s per direction",
                          "gpu_defaults": H100_PCIE, "nodes": nodes, "links": links})
    cluster("h100_cluster_4x8_rail", "4 x HGX H100 (32 GPUs), one 400 Gb/s NIC per GPU; NIC i of every node on rail switch i, "
            "2 spines above (full bisection)", True)
    cluster("h100_cluster_4x8_fattree", "4 x HGX H100 (32 GPUs), one 400 Gb/s NIC per GPU; two leaf switches with 2 nodes each, "
            "2 spines above (full bisection)", False)


if __name__ == "__main__":
    main()
