#!/usr/bin/env python3
"""flashstack and MQSim side by side on the same device and workload: wall
time end to end, peak memory and the simulated figures of each.

    tools/mqsim_side_by_side.py --mqsim PATH/TO/MQSim [--flashstack BIN]
        [--config CONFIG] [--set key=value]... [--rounds N] [--workdir DIR]

runs `flashstack run CONFIG` (default configs/bench/randwrite_steady.yaml:
MQSim's default device with 256 blocks per plane and 4 KiB pages, 32 GiB,
over-provisioning 28 % of logical, preconditioned, then 2 M random 4 KiB
writes at queue depth 256), reads the resolved configuration from its
stats.json, writes the same device and workload as MQSim's ssdconfig.xml and
workload.xml, and runs MQSim on them. Rounds alternate the order (flashstack
first, then MQSim first, ...) so that a drift of the machine's speed falls
on both alike. Each run is timed from process start to exit, as a user
waits for it: parsing, preconditioning, the run and writing the results.
Prints a Markdown table of the medians with ranges and the speed ratio.

MQSim is not part of flashstack: build it from its sources (its Makefile
needs only g++) and pass the binary. Only what both simulators model is
mapped; the tool refuses (exit 2) a configuration it cannot express for
MQSim, and prints the differences that remain under the table. Uses only
the standard library.

Exit codes: 0 on success; 2 on bad arguments, a configuration that cannot be
mapped, or a simulator that fails or writes no results (the message says
which and why).
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CONFIG = os.path.join(ROOT, "configs", "bench", "randwrite_steady.yaml")
DEFAULT_FLASHSTACK = os.path.join(ROOT, "build", "app", "flashstack")

# What the two models do differently even after mapping; printed with the table.
DIFFERENCES = [
    "Multi-plane: MQSim forms multi-plane commands whenever it can; flashstack follows "
    "`device.flash.multi_plane` (mapped only when enabled).",
    "flashstack's suspend, cache-program and channel-arbitration settings have no MQSim counterpart "
    "beyond CMD_Suspension_Support (erase or none).",
]


class UsageError(Exception):
    pass


# ------------------------------------------------------------------ values

_TIME = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}
_SIZE = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
         "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_NUM = r"([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"


def parse_time_ns(text, key):
    m = re.fullmatch(_NUM + r"\s*(ns|us|ms|s)", str(text).strip())
    if not m:
        raise UsageError(f"{key}: '{text}' is not a duration")
    return round(float(m.group(1)) * _TIME[m.group(2)])


def parse_bytes(text, key):
    m = re.fullmatch(_NUM + r"\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)?", str(text).strip())
    if not m:
        raise UsageError(f"{key}: '{text}' is not a size")
    return round(float(m.group(1)) * _SIZE[m.group(2) or "B"])


def parse_rate_bytes(text, key):
    """Bytes per second of '333MB/s', '4GB/s'."""
    s = str(text).strip()
    if not s.endswith("/s"):
        raise UsageError(f"{key}: '{text}' is not a rate")
    return parse_bytes(s[:-2], key)


def parse_fraction(text, key):
    s = str(text).strip()
    try:
        return float(s[:-1]) / 100 if s.endswith("%") else float(s)
    except ValueError:
        raise UsageError(f"{key}: '{text}' is not a fraction") from None


def parse_bool(text, key):
    s = str(text).strip().lower()
    if s not in ("true", "false"):
        raise UsageError(f"{key}: '{text}' is not a boolean")
    return s == "true"


def get(cfg, dotted):
    node = cfg
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            raise UsageError(f"the resolved configuration has no '{dotted}'")
        node = node[part]
    return node


# ----------------------------------------------------------- the mapping

def mqsim_inputs(cfg):
    """(ssdconfig.xml text, workload.xml text, notes) for flashstack's
    resolved configuration `cfg` (stats.json's "config"). Raises UsageError
    naming the key that MQSim cannot express."""
    notes = []

    def refuse(key, why):
        raise UsageError(f"{key} = {get(cfg, key)}: {why}; MQSim cannot run this configuration")

    if get(cfg, "workload.kind") != "fio":
        refuse("workload.kind", "only fio workloads map to MQSim's synthetic flows")
    if get(cfg, "ftl.kind") != "page":
        refuse("ftl.kind", "only the page-mapped FTL has an MQSim counterpart")
    if get(cfg, "ftl.mapping") != "page":
        refuse("ftl.mapping", "MQSim maps pages")
    fio = get(cfg, "workload.fio")
    rw = fio["rw"]
    if rw not in ("randwrite", "randread", "randrw", "write", "read", "rw"):
        refuse("workload.fio.rw", "MQSim's synthetic flows read and write only")
    for key, default in (("numjobs", "1"), ("rate_iops", "0"), ("fsync", "0"), ("zonemode", "none"),
                         ("bssplit", "[]"), ("trim_ratio", "0%")):
        if str(fio[key]) != default:
            refuse(f"workload.fio.{key}", f"not {default}")
    if parse_rate_bytes(fio["rate_bw"], "workload.fio.rate_bw") != 0:
        refuse("workload.fio.rate_bw", "MQSim's QUEUE_DEPTH flows are closed loop")
    random = rw.startswith("rand")
    if random and fio["distribution"] not in ("uniform", "hotcold"):
        refuse("workload.fio.distribution", "MQSim draws uniform or hot/cold addresses")
    total_ios = int(fio["total_ios"])
    runtime_ns = parse_time_ns(fio["runtime"], "workload.fio.runtime")
    max_time_ns = parse_time_ns(get(cfg, "run.max_time"), "run.max_time")
    stop_ns = runtime_ns or max_time_ns
    if total_ios == 0 and stop_ns == 0:
        refuse("workload.fio.total_ios", "give total_ios or a runtime for MQSim to stop")
    if total_ios > 0 and stop_ns > 0:
        notes.append("MQSim stops at the simulated time limit or the request count, whichever it "
                     "is given: the request count is used (Stop_Time 0).")
    bs = parse_bytes(fio["bs"], "workload.fio.bs")
    if bs % 512 != 0 or bs == 0:
        refuse("workload.fio.bs", "MQSim's requests are whole 512-byte sectors")
    if rw in ("randwrite", "write"):
        read_pct = 0
    elif rw in ("randread", "read"):
        read_pct = 100
    else:
        read_pct = round(parse_fraction(fio["rwmixread"], "workload.fio.rwmixread") * 100)

    geo = get(cfg, "device.geometry")
    timing = get(cfg, "device.flash.timing")
    cell = timing["cell"]
    technology = {"slc": "SLC", "mlc": "MLC", "tlc": "TLC"}.get(cell)
    if technology is None:
        refuse("device.flash.timing.cell", "MQSim models SLC, MLC and TLC")
    t_r = parse_time_ns(timing["tR"], "device.flash.timing.tR")
    t_prog = parse_time_ns(timing["tPROG"], "device.flash.timing.tPROG")

    def level(base, key):
        v = parse_time_ns(timing[key], f"device.flash.timing.{key}")
        return v if v > 0 else base

    if parse_time_ns(timing["cmd_overhead"], "device.flash.timing.cmd_overhead") != 0:
        notes.append("device.flash.timing.cmd_overhead is not modelled by MQSim.")
    channel_rate = parse_rate_bytes(timing["channel_rate"], "device.flash.timing.channel_rate")
    if not parse_bool(get(cfg, "device.flash.multi_plane.enabled"), "device.flash.multi_plane.enabled") and \
            int(geo["planes_per_die"]) > 1:
        refuse("device.flash.multi_plane.enabled", "MQSim always forms multi-plane commands")
    suspend_erase = parse_bool(get(cfg, "device.flash.suspend.erase"), "device.flash.suspend.erase")
    if parse_bool(get(cfg, "device.flash.suspend.program"), "device.flash.suspend.program"):
        notes.append("Program suspension (device.flash.suspend.program) is mapped as MQSim's "
                     "CMD_Suspension_Support PROGRAM_ERASE.")
        suspension = "PROGRAM_ERASE" if suspend_erase else "PROGRAM"
    else:
        suspension = "ERASE" if suspend_erase else "NONE"
    scheduler = get(cfg, "device.flash.scheduler")
    tsu = {"read_priority": "PRIORITY_OUT_OF_ORDER"}.get(scheduler)
    if tsu is None:
        tsu = "OUT_OF_ORDER"
        notes.append(f"device.flash.scheduler {scheduler} has no MQSim counterpart; mapped as the nearest, "
                     "OUT_OF_ORDER.")

    ssd = get(cfg, "device.ssd")
    pcie = parse_rate_bytes(ssd["pcie_rate"], "device.ssd.pcie_rate")
    buffer_bytes = parse_bytes(ssd["write_buffer"]["size"], "device.ssd.write_buffer.size")
    if parse_time_ns(ssd["request_overhead"], "device.ssd.request_overhead") != 0:
        notes.append("device.ssd.request_overhead is not modelled by MQSim.")

    op = parse_fraction(get(cfg, "ftl.op"), "ftl.op")
    basis = get(cfg, "ftl.op_basis")
    op_physical = op if basis == "physical" else op / (1 + op)  # MQSim: spare / physical
    victim = get(cfg, "ftl.victim")
    gc_policy = {"greedy": "GREEDY", "random": "RANDOM", "fifo": "FIFO", "d_choices": "RGA"}.get(victim)
    if gc_policy is None:
        refuse("ftl.victim", "MQSim selects victims greedy, RGA, random or FIFO")
    if victim == "d_choices":
        notes.append("ftl.victim d_choices is mapped as MQSim's RGA (greedy among d random blocks), "
                     f"whose d is its own (flashstack d = {get(cfg, 'ftl.d_choices.d')}).")
    gc_threshold = parse_fraction(get(cfg, "ftl.gc_threshold"), "ftl.gc_threshold")
    blocks = int(geo["blocks_per_plane"])
    gc_hard = int(get(cfg, "ftl.gc_fg_threshold")) / blocks
    allocation = get(cfg, "ftl.allocation")
    if allocation not in ("page_stripe", "static"):
        refuse("ftl.allocation", "MQSim allocates planes statically (CWDP and its permutations)")
    if allocation == "page_stripe":
        notes.append("ftl.allocation page_stripe places host pages on planes in write order; MQSim's "
                     "Plane_Allocation_Scheme places them by address (flashstack's `static`): run both "
                     "with --set ftl.allocation=static for the same placement.")
    stripe_order = get(cfg, "ftl.stripe_order")
    map_entries = int(get(cfg, "ftl.map_cache.entries"))
    map_bytes = parse_bytes(get(cfg, "ftl.map_cache.size"), "ftl.map_cache.size")
    ideal = map_entries == 0 and map_bytes == 0
    if not ideal and map_bytes == 0:
        map_bytes = map_entries * int(get(cfg, "ftl.map_cache.entry_bytes"))
    if get(cfg, "ftl.hot_cold") == "true":
        notes.append("ftl.hot_cold (separate streams) has no MQSim counterpart.")
    static_wl = int(get(cfg, "ftl.wear_leveling.static_gap"))
    dynamic_wl = parse_bool(get(cfg, "ftl.wear_leveling.dynamic"), "ftl.wear_leveling.dynamic")
    pre = get(cfg, "ftl.precondition")
    preconditioned = parse_bool(pre["enabled"], "ftl.precondition.enabled")
    fill = parse_fraction(pre["fill_fraction"], "ftl.precondition.fill_fraction")
    occupancy = max(1, min(100, round(fill * 100)))
    if preconditioned:
        method = pre.get("method", "exact")
        how = ("writes the fill and the random overwrites through the FTL" if method == "exact" else
               "writes one plane's share of the fill and the random overwrites and copies that plane's "
               "state to every plane")
        notes.append(f"Preconditioning: flashstack's `{method}` method {how}; MQSim's Enabled_Preconditioning "
                     "sets up an estimated steady-state distribution of valid pages per block without "
                     "writing them.")
    seed = int(get(cfg, "ftl.seed"))

    def xml(root, tree):
        lines = ['<?xml version="1.0" encoding="us-ascii"?>', f"<{root}>"]

        def emit(node, depth):
            for k, v in node:
                if isinstance(v, list):
                    lines.append("\t" * depth + f"<{k}>")
                    emit(v, depth + 1)
                    lines.append("\t" * depth + f"</{k}>")
                else:
                    lines.append("\t" * depth + f"<{k}>{v}</{k}>")

        emit(tree, 1)
        lines.append(f"</{root}>")
        return "\n".join(lines) + "\n"

    def b(v):
        return "true" if v else "false"

    flash = [
        ("Flash_Technology", technology),
        ("CMD_Suspension_Support", suspension),
        ("Page_Read_Latency_LSB", t_r), ("Page_Read_Latency_CSB", level(t_r, "tR_csb")),
        ("Page_Read_Latency_MSB", level(t_r, "tR_msb")),
        ("Page_Program_Latency_LSB", t_prog), ("Page_Program_Latency_CSB", level(t_prog, "tPROG_csb")),
        ("Page_Program_Latency_MSB", level(t_prog, "tPROG_msb")),
        ("Block_Erase_Latency", parse_time_ns(timing["tBERS"], "device.flash.timing.tBERS")),
        ("Block_PE_Cycles_Limit", 10000),
        ("Suspend_Erase_Time", parse_time_ns(get(cfg, "device.flash.suspend.erase_latency"),
                                             "device.flash.suspend.erase_latency")),
        ("Suspend_Program_Time", parse_time_ns(get(cfg, "device.flash.suspend.program_latency"),
                                               "device.flash.suspend.program_latency")),
        ("Die_No_Per_Chip", int(geo["dies_per_chip"])),
        ("Plane_No_Per_Die", int(geo["planes_per_die"])),
        ("Block_No_Per_Plane", blocks),
        ("Page_No_Per_Block", int(geo["pages_per_block"])),
        ("Page_Capacity", parse_bytes(geo["page_size"], "device.geometry.page_size")),
        ("Page_Metadat_Capacity", 448),
    ]
    device = [
        ("Seed", seed),
        ("Enabled_Preconditioning", b(preconditioned)),
        ("Memory_Type", "FLASH"),
        ("HostInterface_Type", "NVME"),
        ("IO_Queue_Depth", 65535),
        ("Queue_Fetch_Size", int(ssd["queue_depth"])),
        ("Caching_Mechanism", "SIMPLE"),
        ("Data_Cache_Sharing_Mode", "SHARED"),
        ("Data_Cache_Capacity", max(buffer_bytes, 1 << 20)),
        ("Data_Cache_DRAM_Row_Size", 8192),
        ("Data_Cache_DRAM_Data_Rate", 100),
        ("Data_Cache_DRAM_Data_Busrt_Size", 1),
        ("Data_Cache_DRAM_tRCD", 13), ("Data_Cache_DRAM_tCL", 13), ("Data_Cache_DRAM_tRP", 13),
        ("Address_Mapping", "PAGE_LEVEL"),
        ("Ideal_Mapping_Table", b(ideal)),
        ("CMT_Capacity", map_bytes if not ideal else 2097152),
        ("CMT_Sharing_Mode", "SHARED"),
        ("Plane_Allocation_Scheme", stripe_order),
        ("Transaction_Scheduling_Policy", tsu),
        ("Overprovisioning_Ratio", f"{op_physical:.6f}"),
        ("GC_Exec_Threshold", f"{gc_threshold:.6f}"),
        ("GC_Block_Selection_Policy", gc_policy),
        ("Use_Copyback_for_GC", "false"),
        ("Preemptible_GC_Enabled", b(parse_bool(get(cfg, "ftl.gc_preemptible"), "ftl.gc_preemptible"))),
        ("GC_Hard_Threshold", f"{min(gc_hard, gc_threshold):.6f}"),
        ("Dynamic_Wearleveling_Enabled", b(dynamic_wl)),
        ("Static_Wearleveling_Enabled", b(static_wl > 0)),
        ("Static_Wearleveling_Threshold", static_wl if static_wl > 0 else 100),
        ("Preferred_suspend_erase_time_for_read", 700000),
        ("Preferred_suspend_erase_time_for_write", 700000),
        ("Preferred_suspend_write_time_for_read", 100000),
        ("Flash_Channel_Count", int(geo["channels"])),
        ("Flash_Channel_Width", 1),
        # An 8-bit channel moves a byte per transfer: MT/s = MB/s.
        ("Channel_Transfer_Rate", round(channel_rate / 10**6)),
        ("Chip_No_Per_Channel", int(geo["chips_per_channel"])),
        ("Flash_Comm_Protocol", "NVDDR2"),
        ("Flash_Parameter_Set", flash),
    ]
    host = [
        ("PCIe_Lane_Bandwidth", f"{pcie / 4 / 10**9:.5f}"),
        ("PCIe_Lane_Count", 4),
        ("SATA_Processing_Delay", 400000),
        ("Enable_ResponseTime_Logging", "false"),
        ("ResponseTime_Logging_Period_Length", 1000000),
    ]
    ssd_xml = xml("Execution_Parameter_Set", [("Host_Parameter_Set", host), ("Device_Parameter_Set", device)])

    def ids(n):
        return ",".join(str(i) for i in range(n))

    if random:
        if fio["distribution"] == "hotcold":
            address = [("Address_Distribution", "RANDOM_HOTCOLD"),
                       ("Percentage_of_Hot_Region",
                        round(parse_fraction(fio["hotcold"]["hot_fraction"], "workload.fio.hotcold.hot_fraction") * 100))]
        else:
            address = [("Address_Distribution", "RANDOM_UNIFORM"), ("Percentage_of_Hot_Region", 0)]
    else:
        address = [("Address_Distribution", "STREAMING"), ("Percentage_of_Hot_Region", 0)]
    flow = [
        ("Priority_Class", "HIGH"),
        ("Device_Level_Data_Caching_Mode", "WRITE_CACHE" if buffer_bytes > 0 else "TURNED_OFF"),
        ("Channel_IDs", ids(int(geo["channels"]))),
        ("Chip_IDs", ids(int(geo["chips_per_channel"]))),
        ("Die_IDs", ids(int(geo["dies_per_chip"]))),
        ("Plane_IDs", ids(int(geo["planes_per_die"]))),
        ("Initial_Occupancy_Percentage", occupancy),
        ("Working_Set_Percentage", 100),
        ("Synthetic_Generator_Type", "QUEUE_DEPTH"),
        ("Read_Percentage", read_pct),
        *address,
        ("Generated_Aligned_Addresses", "true"),
        ("Address_Alignment_Unit", bs // 512),
        ("Request_Size_Distribution", "FIXED"),
        ("Average_Request_Size", bs // 512),
        ("Variance_Request_Size", 0),
        ("Seed", seed),
        ("Average_No_of_Reqs_in_Queue", int(fio["iodepth"])),
        ("Intensity", 32768),
        ("Stop_Time", 0 if total_ios > 0 else stop_ns),
        ("Total_Requests_To_Generate", total_ios),
    ]
    workload_xml = xml("MQSim_IO_Scenarios", [("IO_Scenario", [("IO_Flow_Parameter_Set_Synthetic", flow)])])
    return ssd_xml, workload_xml, notes


def write_shape(cfg):
    """(planes per die, pages per host write or None if the flow reads)."""
    planes = int(get(cfg, "device.geometry.planes_per_die"))
    if get(cfg, "workload.fio.rw") not in ("randwrite", "write"):
        return planes, None
    page = parse_bytes(get(cfg, "device.geometry.page_size"), "device.geometry.page_size")
    bs = parse_bytes(get(cfg, "workload.fio.bs"), "workload.fio.bs")
    return planes, max(1, -(-bs // page))


# ----------------------------------------------------------------- runs

def timed(cmd, cwd, log_path):
    """Runs cmd with its output in log_path: (return code, wall s, peak RSS MiB)."""
    with open(log_path, "w") as log:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, wall, usage.ru_maxrss / 1024


def tail(path, n=3):
    try:
        with open(path, errors="replace") as f:
            return " / ".join(line.strip() for line in f.read().strip().splitlines()[-n:])
    except OSError:
        return ""


def run_flashstack(binary, config, sets, out, log):
    cmd = [binary, "run", config, "--out", out, "--quiet", "--noprogress"]
    for s in sets:
        cmd += ["--set", s]
    rc, wall, rss = timed(cmd, None, log)
    if rc != 0:
        raise UsageError(f"flashstack: '{' '.join(cmd)}' exited with {rc}: {tail(log)}")
    try:
        with open(os.path.join(out, "stats.json")) as f:
            stats = json.load(f)
        with open(os.path.join(out, "run_info.json")) as f:
            info = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"flashstack wrote no readable results in {out}: {e}") from None
    st = stats.get("stats", {})

    def value(name):
        v = st.get(name, {})
        return v.get("value") if isinstance(v, dict) else None

    lat = stats_mean(st, "ssd.latency.write") or stats_mean(st, "ssd.latency.read")
    return {
        "wall": wall, "rss": rss, "config": stats.get("config", {}),
        "setup": info.get("setup_wall_seconds"), "requests": info.get("host_ios"),
        "iops": value("ssd.iops"), "latency_us": lat / 1000 if lat else None,
        # A run without host writes has no write amplification (the formula gives 0).
        "wa": value("ftl.write_amplification") if value("ftl.host_writes") else None,
    }


def stats_mean(st, name):
    h = st.get(name)
    if isinstance(h, dict) and h.get("count"):
        return h.get("mean")
    return None


def run_mqsim(binary, workdir, log, planes_per_die, pages_per_write):
    """Runs MQSim on the inputs in workdir. Its write amplification is its
    flash page programs over the host pages written: single-plane program
    commands plus planes_per_die pages per multi-plane one (exact with two
    planes, an upper bound with more), over Request_Count x pages_per_write;
    None when the flow reads (pages_per_write None)."""
    cmd = [binary, "-i", "ssdconfig.xml", "-w", "workload.xml"]
    result = os.path.join(workdir, "workload_scenario_1.xml")
    if os.path.exists(result):
        os.remove(result)
    rc, wall, rss = timed(cmd, workdir, log)
    if rc != 0:
        hint = ""
        with open(log, errors="replace") as f:
            if "Inconsistency found when moving a page for GC" in f.read():
                hint = (" (MQSim stops with this error at low GC thresholds, e.g. GC_Exec_Threshold 0.005 on "
                        "randwrite_steady's device; run both at MQSim's default with --set ftl.gc_threshold=5%)")
        raise UsageError(f"MQSim: '{' '.join(cmd)}' in {workdir} exited with {rc}: {tail(log)}{hint}")
    try:
        flow = ET.parse(result).getroot().find("./Host/Host.IO_Flow")
    except (OSError, ET.ParseError) as e:
        raise UsageError(f"MQSim wrote no readable results ({result}): {e}") from None
    if flow is None:
        raise UsageError(f"MQSim's results ({result}) hold no Host.IO_Flow")

    def num(tag):
        node = flow.find(tag)
        try:
            v = float(node.text) if node is not None else None
        except (TypeError, ValueError):
            return None
        # MQSim prints "inf" or "nan" where its clock did not move (a very short run).
        return v if v is not None and math.isfinite(v) else None

    wa = None
    ftl = ET.parse(result).getroot().find("./SSDDevice/SSDDevice.FTL")
    requests = num("Request_Count")
    if ftl is not None and pages_per_write and requests:
        try:
            programs = int(ftl.get("Issued_Flash_Program_CMD", "")) + \
                planes_per_die * int(ftl.get("Issued_Flash_Multiplane_Program_CMD", ""))
            wa = programs / (requests * pages_per_write)
        except ValueError:
            wa = None
    pre = None
    with open(log, errors="replace") as f:
        m = re.search(r"Duration of preconditioning: (\d+):(\d+):(\d+)", f.read())
    if m:
        pre = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    return {
        "wall": wall, "rss": rss, "setup": pre, "requests": requests,
        "iops": num("IOPS"), "latency_us": num("Device_Response_Time"), "wa": wa,
    }


# ---------------------------------------------------------------- table

def spread(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    med = statistics.median(values)
    if fmt(min(values)) == fmt(max(values)):
        return fmt(med)
    return f"{fmt(med)} ({fmt(min(values))}–{fmt(max(values))})"


def table(results):
    lines = [
        "| simulator | runs | wall end to end, median (range) | of it set-up / preconditioning | peak RSS | "
        "host requests | requests per wall-second, end to end | simulated IOPS | mean latency | "
        "write amplification |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in ("flashstack", "MQSim"):
        rs = results[name]
        walls = [r["wall"] for r in rs]
        rates = [r["requests"] / r["wall"] for r in rs if r["requests"]]
        lines.append(
            f"| {name} | {len(rs)} | {spread(walls, lambda v: f'{v:.2f} s')} | "
            f"{spread([r['setup'] for r in rs], lambda v: f'{v:.2f} s' if name == 'flashstack' else f'{v:.0f} s')} | "
            f"{spread([r['rss'] for r in rs], lambda v: f'{v:.0f} MiB')} | "
            f"{spread([r['requests'] for r in rs], lambda v: f'{v:,.0f}')} | "
            f"{spread(rates, lambda v: f'{v:,.0f}')} | "
            f"{spread([r['iops'] for r in rs], lambda v: f'{v:,.0f}')} | "
            f"{spread([r['latency_us'] for r in rs], lambda v: f'{v:,.0f} us')} | "
            f"{spread([r['wa'] for r in rs], lambda v: f'{v:.2f}')} |")
    ratio = statistics.median([r["wall"] for r in results["MQSim"]]) / \
        statistics.median([r["wall"] for r in results["flashstack"]])
    lines.append("")
    lines.append(f"flashstack is {ratio:.1f}x faster than MQSim end to end (ratio of the median wall times).")
    return "\n".join(lines)


def main(argv):
    p = argparse.ArgumentParser(prog="mqsim_side_by_side.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--mqsim", required=True, help="the MQSim binary")
    p.add_argument("--flashstack", default=DEFAULT_FLASHSTACK, help="the flashstack binary (default: build/app/flashstack)")
    p.add_argument("--config", default=DEFAULT_CONFIG, help="flashstack config (default: configs/bench/randwrite_steady.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="flashstack override (repeatable)")
    p.add_argument("--rounds", type=int, default=1, help="runs of each simulator (default 1)")
    p.add_argument("--workdir", help="keep the inputs, logs and results here (default: a temporary folder)")
    args = p.parse_args(argv)
    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    for name, path in (("--mqsim", args.mqsim), ("--flashstack", args.flashstack)):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise UsageError(f"{name}: '{path}' is not an executable file")
    if not os.path.isfile(args.config):
        raise UsageError(f"--config: '{args.config}' is not a file")
    mqsim = os.path.abspath(args.mqsim)
    flashstack = os.path.abspath(args.flashstack)
    with tempfile.TemporaryDirectory(prefix="mqsim_side_by_side.") as tmp:
        work = os.path.abspath(args.workdir) if args.workdir else tmp
        os.makedirs(work, exist_ok=True)
        results = {"flashstack": [], "MQSim": []}
        notes = []
        for r in range(args.rounds):
            order = ("flashstack", "MQSim") if r % 2 == 0 else ("MQSim", "flashstack")
            for name in order:
                if name == "flashstack":
                    res = run_flashstack(flashstack, args.config, args.set, os.path.join(work, f"flashstack.{r + 1}"),
                                         os.path.join(work, f"flashstack.{r + 1}.log"))
                    if r == 0:
                        try:
                            ssd_xml, workload_xml, notes = mqsim_inputs(res["config"])
                            shape = write_shape(res["config"])
                        except (KeyError, TypeError) as e:
                            raise UsageError(f"flashstack's resolved configuration lacks {e}: is "
                                             f"{flashstack} older than this tool?") from None
                        with open(os.path.join(work, "ssdconfig.xml"), "w") as f:
                            f.write(ssd_xml)
                        with open(os.path.join(work, "workload.xml"), "w") as f:
                            f.write(workload_xml)
                else:
                    res = run_mqsim(mqsim, work, os.path.join(work, f"mqsim.{r + 1}.log"), *shape)
                results[name].append(res)
                print(f"round {r + 1}: {name} {res['wall']:.2f} s", file=sys.stderr)
        print(table(results))
        print()
        for line in DIFFERENCES + notes:
            print(f"- {line}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"mqsim_side_by_side.py: {e}", file=sys.stderr)
        sys.exit(2)
