#!/usr/bin/python3
"""Measures what each head of the tiny induction model does, on held-out sequences (a development tool).

    /usr/bin/python3 scripts/train/evaluate_tiny.py                    # prints the scores and the ablations
    /usr/bin/python3 scripts/train/evaluate_tiny.py --write-heldout    # also writes heldout.json beside the model

The held-out sequences come from --seed, a generator the training never drew from: distinct random words with one
span repeated (tiny_common.heldout_sequence). For every head (layers and heads counted from 0, as the JS API does):
  previous-token score  mean weight of position i on i-1, over every position i >= 1;
  induction score       mean weight, at each position i of the second copy, on the token after the earlier
                        occurrence of the current token (i - offset + 1, offset = second - first);
  duplicate score       mean weight there on the earlier occurrence itself (i - offset);
  first-token score     mean weight on position 0 (where heads without a job often rest).
A head has a job when one of the first three is at least 0.5. In-context copying is the top-1 accuracy and the mean
loss (nats) of predicting each token of the second copy after its first, with and without heads zeroed (their
weights times 0, as transformers' head_mask and the JS API's `ablate` do).
heldout.json holds the sequences and these figures, so a JS test can recompute them through the public API.
"""

import argparse
import json
import os

import numpy as np
import torch

import tiny_common as tc

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_MODEL = os.path.join(REPO, "web", "public", "models", "induction")
JOB_THRESHOLD = 0.5
JOBS = [("previousToken", "previous token"), ("induction", "induction"), ("duplicate", "duplicate token")]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=DEFAULT_MODEL, help="folder with config.json and model.safetensors")
    p.add_argument("--seed", type=int, default=2026, help="seed of the held-out sequences (not the training's)")
    p.add_argument("--count", type=int, default=64, help="how many held-out sequences")
    p.add_argument("--write-heldout", action="store_true", help="write heldout.json into --model")
    return p.parse_args()


def heldout(seed, count, n_positions):
    rng = np.random.Generator(np.random.PCG64(seed))
    return [dict(zip(("ids", "first", "second", "length"), tc.heldout_sequence(rng, n_positions)))
            for _ in range(count)]


def head_scores(model, sequences):
    """{score name: array [layers, heads]} averaged over the positions each score is defined on."""
    cfg = model.cfg
    sums = {name: np.zeros((cfg.n_layer, cfg.n_head)) for name in ("previousToken", "induction", "duplicate", "first")}
    counts = dict.fromkeys(sums, 0)
    for s in sequences:
        with torch.no_grad():
            _, attentions = model(torch.tensor([s["ids"]]))
        a = np.stack([w[0].numpy() for w in attentions]).astype(np.float64)  # [layers, heads, n, n]
        n, offset = len(s["ids"]), s["second"] - s["first"]
        i = np.arange(1, n)
        sums["previousToken"] += a[:, :, i, i - 1].sum(axis=2)
        counts["previousToken"] += len(i)
        sums["first"] += a[:, :, i, 0].sum(axis=2)
        counts["first"] += len(i)
        copy = np.arange(s["second"], s["second"] + s["length"])
        sums["induction"] += a[:, :, copy, copy - offset + 1].sum(axis=2)
        sums["duplicate"] += a[:, :, copy, copy - offset].sum(axis=2)
        counts["induction"] += len(copy)
        counts["duplicate"] += len(copy)
    return {name: sums[name] / counts[name] for name in sums}


def copying(model, sequences, ablate=(), which="second"):
    """Top-1 accuracy and mean loss (nats) of predicting each token of a copy after its first, from the one before.
    which="first" measures the first occurrence, which nothing earlier in the sequence predicts (chance: 1/vocab)."""
    hits, loss, total = 0, 0.0, 0
    for s in sequences:
        with torch.no_grad():
            logits, _ = model(torch.tensor([s["ids"]]), ablate=ablate)
        logp = torch.log_softmax(logits[0].double(), dim=-1).numpy()
        start = s[which]
        for i in range(start, start + s["length"] - 1):  # position i predicts the token at i + 1
            target = s["ids"][i + 1]
            hits += int(np.argmax(logp[i]) == target)
            loss -= logp[i, target]
            total += 1
    return {"accuracy": hits / total, "loss": loss / total, "predictions": total}


def jobs(scores):
    """[{layer, head, job, scores}] for every head; job is None when no score reaches the threshold."""
    layers, heads = scores["induction"].shape
    out = []
    for l in range(layers):
        for h in range(heads):
            own = {name: round(float(scores[name][l, h]), 4) for name in scores}
            best = max(JOBS, key=lambda job: own[job[0]])
            out.append({"layer": l, "head": h, "job": best[1] if own[best[0]] >= JOB_THRESHOLD else None, **own})
    return out


def main():
    args = parse_args()
    torch.set_num_threads(1)
    with open(os.path.join(args.model, "config.json")) as f:
        cfg = tc.config_from_json(json.load(f))
    model = tc.load_model(cfg, tc.read_safetensors(os.path.join(args.model, "model.safetensors")))
    sequences = heldout(args.seed, args.count, cfg.n_positions)

    heads = jobs(head_scores(model, sequences))
    print(f"{len(sequences)} held-out sequences (seed {args.seed}); scores are mean attention weights")
    print("layer head  prev-token  induction  duplicate  first-token  job")
    for h in heads:
        print(f"{h['layer']:5d} {h['head']:4d}  {h['previousToken']:10.3f} {h['induction']:10.3f} "
              f"{h['duplicate']:10.3f} {h['first']:12.3f}  {h['job'] or 'no clear job'}")

    induction = [[h["layer"], h["head"]] for h in heads if h["job"] == "induction"]
    previous = [[h["layer"], h["head"]] for h in heads if h["job"] == "previous token"]
    runs = {"none": [], "induction heads": induction, "previous-token heads": previous}
    runs.update({f"L{h['layer']}H{h['head']}": [[h["layer"], h["head"]]] for h in heads})
    ablations = []
    print("\nin-context copying (second copy; the first copy is chance):")
    first = copying(model, sequences, which="first")
    print(f"  first copy, nothing ablated: top-1 {first['accuracy']:.3f}  loss {first['loss']:.3f}")
    for name, ablate in runs.items():
        r = copying(model, sequences, ablate)
        ablations.append({"name": name, "ablate": ablate, "accuracy": round(r["accuracy"], 4),
                          "loss": round(r["loss"], 4)})
        print(f"  ablate {name:22s} {str(ablate):18s} top-1 {r['accuracy']:.3f}  loss {r['loss']:.3f}"
              f"  ({r['predictions']} predictions)")

    if args.write_heldout:
        out = {
            "about": "Held-out sequences for the induction model (scripts/train/evaluate_tiny.py --write-heldout): "
                     "distinct random words with ids[first:first+length] repeated at ids[second:second+length]. "
                     "heads and copying are the figures measured in PyTorch; layers and heads count from 0.",
            "seed": args.seed,
            "threshold": JOB_THRESHOLD,
            "heads": heads,
            "copying": {"firstCopy": {"accuracy": round(first["accuracy"], 4), "loss": round(first["loss"], 4)},
                        "ablations": ablations},
        }
        # Indented JSON, but one sequence per line: the file stays small and readable.
        rows = [json.dumps({"first": s["first"], "second": s["second"], "length": s["length"], "ids": s["ids"]})
                for s in sequences]
        text = json.dumps(out, indent=2)[:-2] + ',\n  "sequences": [\n    ' + ",\n    ".join(rows) + "\n  ]\n}\n"
        path = os.path.join(args.model, "heldout.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"\nwrote {os.path.relpath(path, REPO)} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
