//! The procedures' reference-setup tables, as data: each row's part, the reference value,
//! what a difference predicts (from the procedure's own words where it gives them) and the
//! section the row comes from. How each row is compared with the files is in
//! [`super::conformance`].

/// One reference-setup row.
pub struct Row {
    /// Key of the fact it compares (see [`super::setup`]).
    pub id: &'static str,
    pub part: &'static str,
    pub reference: &'static str,
    /// What a difference does to the comparison.
    pub predicts: &'static str,
    /// What would give the value when the folder does not.
    pub would_give: &'static str,
}

pub struct Table {
    /// Which suites the table is for (any of them found in the folder shows it).
    pub suites: &'static [&'static str],
    pub title: &'static str,
    pub source: &'static str,
    pub rows: &'static [Row],
}

const KV_SOURCE: &str = "Reproducing the benchmarks, \"AI Key-Value Caching\", Reference setup";
const STORAGE_SOURCE: &str =
    "Reproducing the benchmarks, \"Storage acceleration\", Reference setup";

pub const TABLES: &[Table] = &[
    Table {
        suites: &["kv-restore", "kv-ladder", "kv-dram"],
        title: "AI Key-Value Caching: reference setup",
        source: KV_SOURCE,
        rows: &[
            Row {
                id: "gpu-model",
                part: "GPU model",
                reference: "NVIDIA H200 NVL (141 GB)",
                predicts: "Another GPU changes prefill (recompute) time and how much KV cache fits in GPU memory: restore/recompute ratios and the ladder's absolute numbers move.",
                would_give: "`nvidia-smi -L` as system/nvidia-smi-L.txt",
            },
            Row {
                id: "gpu-count",
                part: "GPU count",
                reference: "8",
                predicts: "Fewer GPUs hold less KV cache: the ladder overflows GPU memory at fewer clients, and the long test 1 prompt may not fit.",
                would_give: "`nvidia-smi -L` as system/nvidia-smi-L.txt",
            },
            Row {
                id: "nvlink",
                part: "NVLink domains",
                reference: "two 4-GPU NVLink domains",
                predicts: "The connector fans restored KV out over NVLink (`nvlink_fanout`); without the same domains restores move more data over PCIe and take longer.",
                would_give: "`nvidia-smi topo -m` as system/nvidia-smi-topo.txt",
            },
            Row {
                id: "driver",
                part: "NVIDIA driver",
                reference: "R580 or later",
                predicts: "An older driver may not run the product image's CUDA at full speed; the run may not be representative.",
                would_give: "`nvidia-smi -q` as system/nvidia-smi-q.txt",
            },
            Row {
                id: "vllm-version",
                part: "vLLM",
                reference: "0.28.0 (GLM-5.3, MiniMax M3); 0.29.0 (DeepSeek-V4-Flash, Kimi-Linear)",
                predicts: "Another vLLM release schedules, caches and reports differently: the published numbers were made with these releases.",
                would_give: "the vLLM server log (logs/<variant>-vllm.log) or compose/<variant>/compose.yaml",
            },
            Row {
                id: "connector-release",
                part: "Connector and gateway release",
                reference: "6.1.1",
                predicts: "Another connector release may restore differently (chunking, fan-out); compare with its own release notes.",
                would_give: "compose/<variant>/compose.yaml (the images' tags)",
            },
            Row {
                id: "model",
                part: "Model",
                reference: "GLM-5.3 FP8",
                predicts: "Another model has another KV size per token and prefill cost: compare with that model's published row (Other models), not GLM-5.3's.",
                would_give: "the vLLM server log's arguments or compose/<variant>/compose.yaml",
            },
            Row {
                id: "tensor-parallel",
                part: "Tensor parallelism",
                reference: "8",
                predicts: "Tensor parallelism sets how many GPUs hold the KV cache and run prefill: with fewer, the GPU KV cache is smaller, recompute is slower and the ladder overflows GPU memory sooner.",
                would_give: "the vLLM server log's arguments or compose/<variant>/compose.yaml",
            },
            Row {
                id: "mtp",
                part: "Multi-token prediction",
                reference: "on, 1 speculative token",
                predicts: "Without multi-token prediction the generation rates (test 2) differ from the reference's.",
                would_give: "the vLLM server log's arguments or compose/<variant>/compose.yaml",
            },
            Row {
                id: "max-model-len",
                part: "Context length",
                reference: "256,000 tokens",
                predicts: "A shorter context cannot hold the ~196,000-token test 1 prompt; a longer one leaves less room for concurrent requests.",
                would_give: "the vLLM server log's arguments or compose/<variant>/compose.yaml",
            },
            Row {
                id: "kv-cache-tokens",
                part: "GPU KV cache size",
                reference: "about 545,000 tokens (545,536)",
                predicts: "The GPU KV cache size sets where the ladder overflows GPU memory (8 clients on the reference setup): the levels at which the card helps move.",
                would_give: "the `GPU KV cache size` startup line in the vLLM server log",
            },
            Row {
                id: "link-gbit",
                part: "Fabric and link speed",
                reference: "InfiniBand EDR (or RoCE v2), 100 Gb/s per port",
                predicts: "Long-prompt restores are bounded by whichever is slower, the network link or the SSDs: a slower link raises the restore floor in proportion.",
                would_give: "`ib_read_bw` output as system/ib_read_bw.txt",
            },
            Row {
                id: "transport",
                part: "NVMe-oF transport",
                reference: "RDMA",
                predicts: "NVMe over TCP adds copies and latency on both hosts: restores are slower than over RDMA.",
                would_give: "`nvme list-subsys` as system/nvme-list-subsys.txt",
            },
            Row {
                id: "cache-tier",
                part: "Cache tier",
                reference: "one ADP card; two 3.84 TB NVMe SSDs in RAID 0 (~7 TB usable)",
                predicts: "The SSD count sets the card's read bandwidth and capacity: with fewer SSDs restores can be bounded by the SSDs rather than the link, and fewer histories fit.",
                would_give: "`nvme list` (system/nvme-list.txt) with the gateway's --storage-devices in compose/adp/compose.yaml",
            },
        ],
    },
    Table {
        suites: &["storage"],
        title: "Storage acceleration: reference setup",
        source: STORAGE_SOURCE,
        rows: &[
            Row {
                id: "server",
                part: "Server",
                reference: "Dell PowerEdge R750",
                predicts: "Another server has other PCIe lanes and CPUs: the host side of both arrays differs.",
                would_give: "/sys/class/dmi/id/product_name as system/dmi-product.txt",
            },
            Row {
                id: "os",
                part: "Operating system",
                reference: "Ubuntu 24.04",
                predicts: "Another kernel's md RAID and NVMe drivers differ: the RAID10 baseline moves.",
                would_give: "/etc/os-release as system/os-release.txt",
            },
            Row {
                id: "cpu",
                part: "CPU",
                reference: "2 × Intel Xeon Gold 6346 at 3.10 GHz",
                predicts: "mdraid RAID10 runs on the host CPU: another CPU moves the baseline (and the CPU observation) more than the card.",
                would_give: "`lscpu` as system/lscpu.txt",
            },
            Row {
                id: "memory",
                part: "Memory",
                reference: "512 GB",
                predicts: "Direct I/O bypasses the page cache: memory size barely moves these numbers.",
                would_give: "`free -g` as system/free.txt",
            },
            Row {
                id: "drives",
                part: "Drives",
                reference: "4 × Samsung PM9A3 (3.84 TB, PCIe Gen4)",
                predicts: "With four Gen4 drives the drives, not the card, are the ceiling: other drives or another count move both arrays' bandwidth; loop devices or files measure the host's own storage, not NVMe drives.",
                would_give: "`nvme list` as system/nvme-list.txt (or fio's filename in the results)",
            },
            Row {
                id: "fio-io",
                part: "Tool",
                reference: "fio, direct I/O, raw block device, 67% compressible buffers",
                predicts: "Buffered I/O measures the page cache; a file system adds its own work; another compressibility changes what the card's inline compression saves.",
                would_give: "the fio JSON results (their job options)",
            },
        ],
    },
];
