"""The tables of deploy/study-latency.sh, from the table.json files bench.lasso wrote.

    python3 -m bench.latency table ROOT NAME LATENCIES CONFIGS
        per one-way latency and configuration: µs a round, rounds/s, updates/s, updates a round,
        seconds to 1e-3 of F*, and its ratios to the reference's and to the same configuration's
        at the first latency; reads ROOT/results-NAME-latL/table.json
    python3 -m bench.latency cost-model ROOT NAME CONFIGS
        where a round goes at no added latency: the differences of a 1000-round and a 100-round
        run (ROOT/results-NAME-rounds{100,1000}/), wall and each role's CPU µs a round
"""
import json
import os
import sys


def table(root, name, lats, configs):
    lats, configs = lats.split(","), configs.split(",")
    print(f"Problem `{name}`; latency injected one way on every message a daemon receives.")
    print()
    print("| one-way latency | config | us/round | rounds/s | updates/s | updates/round "
          "| s to 1e-3 | vs reference | vs 0 us |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = {}
    for lat in lats:
        with open(os.path.join(root, f"results-{name}-lat{lat}", "table.json")) as f:
            configs_of = json.load(f)["configs"]
        ref = configs_of.get("ref", {}).get("s_to_1e-3")
        for key in configs:
            c = configs_of.get(key)
            if c is None:
                continue
            t3 = c["s_to_1e-3"]
            base.setdefault(key, t3)
            per_round = c["solve_s"] / c["rounds"] * 1e6 if c["rounds"] else None

            def ratio(x, y):
                return "n/r" if x is None or not y else f"{x / y:.1f}x"

            print(f"| {lat} us | {c['label']} | {per_round:,.0f} | {c['rounds'] / c['solve_s']:,.0f} | "
                  f"{c['updates'] / c['solve_s']:,.0f} | {c['updates'] / c['rounds']:,.0f} | "
                  f"{'n/r' if t3 is None else f'{t3:.3f}'} | {ratio(t3, ref)} | {ratio(t3, base[key])} |")


def cost_model(root, name, configs):
    configs = configs.split(",")

    def load(tag, key):
        d = os.path.join(root, f"results-{name}-{tag}")
        with open(os.path.join(d, "table.json")) as f:
            c = json.load(f)["configs"][key]
        cpu = {}
        with open(os.path.join(d, f"{key}.cpu")) as f:
            for line in f:
                daemon, seconds = line.split()
                role = daemon.split("-")[0]
                cpu[role] = cpu.get(role, 0.0) + float(seconds)
        return c, cpu

    print()
    print("Where a round goes at no added latency (differences of a 1000-round and a 100-round run;"
          " CPU summed over the daemons of a role):")
    print()
    print("| config | wall us/round | coordinator CPU us/round | schedulers CPU us/round "
          "| workers CPU us/round |")
    print("|---|---|---|---|---|")
    for key in configs:
        try:
            (s, cs), (l, cl) = load("rounds100", key), load("rounds1000", key)
        except (OSError, KeyError):
            continue
        dr = l["rounds"] - s["rounds"]
        wall = (l["solve_s"] - s["solve_s"]) / dr * 1e6
        per = {r: (cl.get(r, 0.0) - cs.get(r, 0.0)) / dr * 1e6
               for r in ("coordinator", "scheduler", "worker")}
        print(f"| {l['label']} | {wall:,.0f} | {per['coordinator']:,.0f} | {per['scheduler']:,.0f} "
              f"| {per['worker']:,.0f} |")


def main(argv):
    if argv[:1] == ["table"] and len(argv) == 5:
        table(*argv[1:])
    elif argv[:1] == ["cost-model"] and len(argv) == 4:
        cost_model(*argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
