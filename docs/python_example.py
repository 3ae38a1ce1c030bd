"""The example of docs/python.md (run from the repository root; tests run it)."""

import packetsim

# A scenario from a file, with overrides (checked like values written in the file).
sc = packetsim.load("scenarios/dumbbell.toml", {"simulation.duration": "5s"})
print(sc.nodes, sc.links, sc.flows)

# One run: the summary dict and DataFrames.
r = packetsim.run(sc, seed=7)
print(r.summary["events"])
print(r.flows[["flow", "variant", "goodput_bps", "retransmits"]])
print(r.queues.loc[r.queues.drops > 0, ["queue", "arrivals", "drops", "utilisation"]])

# A sweep: one row per run, numeric parameter columns in SI units, seed, metric columns.
df = packetsim.sweep(
    sc,
    {"links.bottleneck.loss": [0, 0.01], "links.bottleneck.rate": ["5Mbps", "10Mbps"]},
    runs=3,
)
print(df.groupby(["links.bottleneck.rate", "links.bottleneck.loss"])["flows.bulk_0.goodput_bps"].mean())

# A scenario error carries file, line and key.
try:
    packetsim.loads('[simulation]\nduration = "5 seconds"\n', name="mine.toml")
except packetsim.ScenarioError as e:
    print(e.file, e.line, e.key)
