#!/usr/bin/env python3
"""Tests of tools/mqsim_side_by_side.py with stand-in simulators: a fake
flashstack that writes stats.json and run_info.json with a resolved
configuration, and a fake MQSim that records the XML it was given and writes
a results file. Checks the mapping of the configuration into MQSim's inputs
(geometry, timings, over-provisioning as spare/physical, request size and
queue depth, stop condition), the alternating order, the table and ratio,
and exit code 2 with a message for configurations MQSim cannot express and
for failing simulators."""
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "mqsim_side_by_side.py")
sys.path.insert(0, HERE)
import mqsim_side_by_side as sbs  # noqa: E402


def config(**over):
    """A resolved configuration as flashstack writes it (strings with units)."""
    cfg = {
        "device": {
            "geometry": {"channels": "8", "chips_per_channel": "4", "dies_per_chip": "2", "planes_per_die": "2",
                         "blocks_per_plane": "256", "pages_per_block": "256", "page_size": "4KiB"},
            "flash": {
                "scheduler": "read_priority",
                "timing": {"cell": "mlc", "tR": "75us", "tR_csb": "0ns", "tR_msb": "0ns", "tPROG": "750us",
                           "tPROG_csb": "0ns", "tPROG_msb": "0ns", "tBERS": "3.8ms", "channel_rate": "333MB/s",
                           "cmd_overhead": "0ns"},
                "multi_plane": {"enabled": "true"},
                "suspend": {"program": "false", "erase": "true", "program_latency": "100us",
                            "erase_latency": "700us"},
            },
            "ssd": {"queue_depth": "512", "pcie_rate": "4GB/s", "request_overhead": "0ns",
                    "write_buffer": {"size": "0B"}},
        },
        "ftl": {"kind": "page", "op": "28%", "op_basis": "logical", "mapping": "page", "victim": "greedy",
                "allocation": "page_stripe", "stripe_order": "CWDP", "gc_threshold": "0.5%", "gc_fg_threshold": "1",
                "gc_preemptible": "false", "hot_cold": "false", "seed": "7",
                "precondition": {"enabled": "true", "fill_fraction": "1", "method": "exact"},
                "wear_leveling": {"dynamic": "false", "static_gap": "0"},
                "map_cache": {"entries": "0", "size": "0B", "entry_bytes": "4"},
                "d_choices": {"d": "10"}},
        "run": {"max_time": "0ns"},
        "workload": {"kind": "fio", "fio": {
            "rw": "randwrite", "rwmixread": "50%", "trim_ratio": "0%", "bs": "4KiB", "bssplit": "[]",
            "iodepth": "256", "numjobs": "1", "distribution": "uniform", "rate_iops": "0", "rate_bw": "0B/s",
            "total_ios": "2000000", "runtime": "0ns", "fsync": "0", "zonemode": "none",
            "hotcold": {"hot_fraction": "20%"}}},
    }
    for dotted, value in over.items():
        node = cfg
        parts = dotted.split("__")
        for p in parts[:-1]:
            node = node[p]
        node[parts[-1]] = value
    return cfg


def fields(xml_text):
    root = ET.fromstring(xml_text.split("\n", 1)[1])
    return {e.tag: e.text for e in root.iter() if len(e) == 0}


class MappingTest(unittest.TestCase):
    def test_device_and_workload(self):
        ssd, wl, notes = sbs.mqsim_inputs(config())
        d = fields(ssd)
        self.assertEqual(d["Flash_Channel_Count"], "8")
        self.assertEqual(d["Chip_No_Per_Channel"], "4")
        self.assertEqual(d["Die_No_Per_Chip"], "2")
        self.assertEqual(d["Plane_No_Per_Die"], "2")
        self.assertEqual(d["Block_No_Per_Plane"], "256")
        self.assertEqual(d["Page_No_Per_Block"], "256")
        self.assertEqual(d["Page_Capacity"], "4096")
        self.assertEqual(d["Page_Read_Latency_MSB"], "75000")
        self.assertEqual(d["Page_Program_Latency_LSB"], "750000")
        self.assertEqual(d["Block_Erase_Latency"], "3800000")
        self.assertEqual(d["Channel_Transfer_Rate"], "333")
        self.assertEqual(d["PCIe_Lane_Bandwidth"], "1.00000")
        self.assertEqual(d["Queue_Fetch_Size"], "512")
        # 28 % of logical is 0.28 / 1.28 of physical: MQSim's convention.
        self.assertAlmostEqual(float(d["Overprovisioning_Ratio"]), 0.21875, places=6)
        self.assertAlmostEqual(float(d["GC_Exec_Threshold"]), 0.005)
        self.assertEqual(d["GC_Block_Selection_Policy"], "GREEDY")
        self.assertEqual(d["Ideal_Mapping_Table"], "true")
        self.assertEqual(d["Enabled_Preconditioning"], "true")
        self.assertEqual(d["CMD_Suspension_Support"], "ERASE")
        self.assertEqual(d["Transaction_Scheduling_Policy"], "PRIORITY_OUT_OF_ORDER")
        self.assertEqual(d["Static_Wearleveling_Enabled"], "false")
        w = fields(wl)
        self.assertEqual(w["Read_Percentage"], "0")
        self.assertEqual(w["Address_Distribution"], "RANDOM_UNIFORM")
        self.assertEqual(w["Average_Request_Size"], "8")
        self.assertEqual(w["Address_Alignment_Unit"], "8")
        self.assertEqual(w["Average_No_of_Reqs_in_Queue"], "256")
        self.assertEqual(w["Total_Requests_To_Generate"], "2000000")
        self.assertEqual(w["Stop_Time"], "0")
        self.assertEqual(w["Device_Level_Data_Caching_Mode"], "TURNED_OFF")
        self.assertEqual(w["Initial_Occupancy_Percentage"], "100")
        self.assertEqual(w["Plane_IDs"], "0,1")
        self.assertEqual(len(notes), 2)
        self.assertIn("ftl.allocation=static", notes[0])
        self.assertIn("`exact` method writes", notes[1])
        _, _, notes = sbs.mqsim_inputs(config(ftl__allocation="static", ftl__precondition={
            "enabled": "true", "fill_fraction": "1", "method": "replicate"}))
        self.assertEqual(len(notes), 1)
        self.assertIn("`replicate` method", notes[0])
        _, _, notes = sbs.mqsim_inputs(config(ftl__allocation="static", ftl__precondition={
            "enabled": "false", "fill_fraction": "1", "method": "exact"}))
        self.assertEqual(notes, [])

    def test_variants(self):
        ssd, wl, _ = sbs.mqsim_inputs(config(ftl__op="10%", ftl__op_basis="physical",
                                             device__ssd__write_buffer={"size": "64MiB"}))
        d, w = fields(ssd), fields(wl)
        self.assertAlmostEqual(float(d["Overprovisioning_Ratio"]), 0.10)
        self.assertEqual(d["Data_Cache_Capacity"], str(64 << 20))
        self.assertEqual(w["Device_Level_Data_Caching_Mode"], "WRITE_CACHE")
        _, wl, _ = sbs.mqsim_inputs(config(workload__fio__rw="randrw", workload__fio__rwmixread="70%",
                                           workload__fio__total_ios="0", workload__fio__runtime="2s"))
        w = fields(wl)
        self.assertEqual(w["Read_Percentage"], "70")
        self.assertEqual(w["Stop_Time"], "2000000000")
        self.assertEqual(w["Total_Requests_To_Generate"], "0")
        _, wl, _ = sbs.mqsim_inputs(config(workload__fio__rw="write"))
        self.assertEqual(fields(wl)["Address_Distribution"], "STREAMING")
        ssd, _, _ = sbs.mqsim_inputs(config(ftl__map_cache={"entries": "0", "size": "2MiB", "entry_bytes": "4"}))
        d = fields(ssd)
        self.assertEqual(d["Ideal_Mapping_Table"], "false")
        self.assertEqual(d["CMT_Capacity"], str(2 << 20))

    def test_refusals_name_the_key(self):
        cases = [
            ({"ftl__kind": "zns"}, "ftl.kind"),
            ({"workload__kind": "filebench"}, "workload.kind"),
            ({"workload__fio__rw": "trim"}, "workload.fio.rw"),
            ({"workload__fio__numjobs": "4"}, "workload.fio.numjobs"),
            ({"workload__fio__distribution": "zipf"}, "workload.fio.distribution"),
            ({"workload__fio__total_ios": "0"}, "workload.fio.total_ios"),
            ({"workload__fio__bs": "1000B"}, "workload.fio.bs"),
            ({"ftl__victim": "cost_benefit"}, "ftl.victim"),
            ({"device__flash__timing__cell": "qlc"}, "device.flash.timing.cell"),
            ({"device__flash__timing__tR": "fast"}, "device.flash.timing.tR"),
        ]
        for over, key in cases:
            with self.assertRaises(sbs.UsageError, msg=key) as cm:
                sbs.mqsim_inputs(config(**over))
            self.assertIn(key, str(cm.exception))


class EndToEndTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name
        self.log = os.path.join(self.t, "order.log")
        self.cfg = os.path.join(self.t, "x.yaml")
        with open(self.cfg, "w") as f:
            f.write("name: x\n")

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, name, body):
        path = os.path.join(self.t, name)
        with open(path, "w") as f:
            f.write("#!/usr/bin/env python3\n" + body)
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def fake_flashstack(self, cfg, rc=0, host_writes=2000000):
        return self.script("flashstack", f"""
import json, os, sys
open({self.log!r}, "a").write("flashstack " + " ".join(sys.argv[1:]) + "\\n")
if {rc}:
    print("flashstack: error: boom", file=sys.stderr); sys.exit({rc})
out = sys.argv[sys.argv.index("--out") + 1]
os.makedirs(out, exist_ok=True)
stats = {{"config": {json.dumps(cfg)}, "stats": {{
    "ssd.iops": {{"type": "formula", "value": 32000.0}},
    "ftl.write_amplification": {{"type": "formula", "value": 2.54}},
    "ftl.host_writes": {{"type": "counter", "value": {host_writes}}},
    "ssd.latency.write": {{"type": "histogram", "count": 10, "mean": 8000000.0}}}}}}
json.dump(stats, open(os.path.join(out, "stats.json"), "w"))
json.dump({{"setup_wall_seconds": 0.5, "host_ios": 2000000}}, open(os.path.join(out, "run_info.json"), "w"))
""")

    def fake_mqsim(self, rc=0, write=True, error="", iops="14285.7"):
        return self.script("MQSim", f"""
import os, sys, xml.etree.ElementTree as ET, time
open({self.log!r}, "a").write("MQSim " + " ".join(sys.argv[1:]) + "\\n")
assert sys.argv[1:] == ["-i", "ssdconfig.xml", "-w", "workload.xml"], sys.argv
w = ET.parse("workload.xml").getroot()
n = w.find(".//Total_Requests_To_Generate").text
ET.parse("ssdconfig.xml")
print("SSD Device preconditioning started .........")
print("Finished preconditioning. Duration of preconditioning: 0:1:05")
time.sleep(0.2)
if {error!r}:
    print({error!r})
if {rc}:
    sys.exit({rc})
if {write}:
    open("workload_scenario_1.xml", "w").write(
        "<?xml version=\\"1.0\\"?><MQSim_Results><Host><Host.IO_Flow><Name>f</Name>"
        f"<Request_Count>{{n}}</Request_Count><IOPS>{iops}</IOPS>"
        "<Device_Response_Time>17766</Device_Response_Time></Host.IO_Flow></Host>"
        "<SSDDevice><SSDDevice.FTL Issued_Flash_Program_CMD=\\"1000000\\" "
        "Issued_Flash_Multiplane_Program_CMD=\\"1500000\\"/></SSDDevice></MQSim_Results>")
""")

    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)

    def test_rounds_alternate_and_table(self):
        fs = self.fake_flashstack(config())
        mq = self.fake_mqsim()
        work = os.path.join(self.t, "work")
        p = self.run_tool("--mqsim", mq, "--flashstack", fs, "--config", self.cfg, "--rounds", "3",
                          "--workdir", work, "--set", "workload.fio.total_ios=2000000")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.log) as f:
            order = [line.split()[0] for line in f]
        self.assertEqual(order, ["flashstack", "MQSim", "MQSim", "flashstack", "flashstack", "MQSim"])
        with open(self.log) as f:
            self.assertIn("--set workload.fio.total_ios=2000000", f.readline())
        self.assertIn("| flashstack | 3 |", p.stdout)
        self.assertIn("| MQSim | 3 |", p.stdout)
        self.assertIn("0.50 s", p.stdout)  # flashstack's set-up
        self.assertIn("65 s", p.stdout)  # MQSim's preconditioning
        self.assertIn("14,286", p.stdout)
        self.assertIn("17,766 us", p.stdout)
        self.assertIn("8,000 us", p.stdout)
        # MQSim: (1 M single-plane + 2 x 1.5 M two-plane programs) / 2 M host pages.
        self.assertIn("| 2.00 |", p.stdout)
        self.assertIn("| 2.54 |", p.stdout)
        self.assertRegex(p.stdout, r"flashstack is [0-9.]+x (faster|slower)")
        self.assertIn("Preconditioning:", p.stdout)
        self.assertTrue(os.path.exists(os.path.join(work, "ssdconfig.xml")))
        self.assertEqual(fields(open(os.path.join(work, "workload.xml")).read())["Total_Requests_To_Generate"],
                         "2000000")

    def test_reads_have_no_write_amplification(self):
        cfg = config(workload__fio__rw="randread")
        p = self.run_tool("--mqsim", self.fake_mqsim(), "--flashstack", self.fake_flashstack(cfg, host_writes=0),
                          "--config", self.cfg)
        self.assertEqual(p.returncode, 0, p.stderr)
        for row in p.stdout.splitlines()[2:4]:
            self.assertTrue(row.endswith("| — |"), row)

    def test_mqsim_non_finite_figures_show_as_missing(self):
        p = self.run_tool("--mqsim", self.fake_mqsim(iops="inf"), "--flashstack", self.fake_flashstack(config()),
                          "--config", self.cfg)
        self.assertEqual(p.returncode, 0, p.stderr)
        mqsim_row = [r for r in p.stdout.splitlines() if r.startswith("| MQSim |")][0]
        self.assertNotIn("inf", mqsim_row)
        self.assertEqual(mqsim_row.split("|")[8].strip(), "—")

    def test_config_missing_keys_exits_2(self):
        cfg = config()
        del cfg["device"]["flash"]["timing"]["tPROG"]
        p = self.run_tool("--mqsim", self.fake_mqsim(), "--flashstack", self.fake_flashstack(cfg),
                          "--config", self.cfg)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("tPROG", p.stderr)

    def test_unmappable_config_exits_2(self):
        p = self.run_tool("--mqsim", self.fake_mqsim(), "--flashstack",
                          self.fake_flashstack(config(workload__kind="filebench")), "--config", self.cfg)
        self.assertEqual(p.returncode, 2)
        self.assertIn("workload.kind", p.stderr)

    def test_failing_simulators_exit_2(self):
        p = self.run_tool("--mqsim", self.fake_mqsim(rc=3), "--flashstack", self.fake_flashstack(config()),
                          "--config", self.cfg)
        self.assertEqual(p.returncode, 2)
        self.assertIn("MQSim", p.stderr)
        self.assertIn("exited with 3", p.stderr)
        p = self.run_tool("--mqsim", self.fake_mqsim(write=False), "--flashstack", self.fake_flashstack(config()),
                          "--config", self.cfg)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no readable results", p.stderr)
        p = self.run_tool("--mqsim", self.fake_mqsim(rc=1, error="ERROR:Inconsistency found when moving a page for GC/WL!"),
                          "--flashstack", self.fake_flashstack(config()), "--config", self.cfg)
        self.assertEqual(p.returncode, 2)
        self.assertIn("ftl.gc_threshold=5%", p.stderr)
        p = self.run_tool("--mqsim", self.fake_mqsim(), "--flashstack", self.fake_flashstack(config(), rc=1),
                          "--config", self.cfg)
        self.assertEqual(p.returncode, 2)
        self.assertIn("boom", p.stderr)

    def test_bad_arguments_exit_2(self):
        p = self.run_tool("--mqsim", os.path.join(self.t, "missing"), "--config", self.cfg)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--mqsim", p.stderr)
        p = self.run_tool("--mqsim", self.fake_mqsim(), "--flashstack", self.fake_flashstack(config()),
                          "--config", self.cfg, "--rounds", "0")
        self.assertEqual(p.returncode, 2)
        p = self.run_tool("--mqsim", self.fake_mqsim(), "--flashstack", self.fake_flashstack(config()),
                          "--config", os.path.join(self.t, "nope.yaml"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("--config", p.stderr)


if __name__ == "__main__":
    unittest.main()
