#!/usr/bin/python3
"""Trains the tiny induction model shipped in web/public/models/induction/ (a development tool, never run by npm).

    nice -n 19 /usr/bin/python3 scripts/train/train_tiny.py            # trains and writes the four files
    nice -n 19 /usr/bin/python3 scripts/train/train_tiny.py --check    # retrains into a temporary folder and
                                                                       # compares each file's SHA-256 with the
                                                                       # committed one
    /usr/bin/python3 scripts/train/evaluate_tiny.py --write-heldout    # then: the heads' scores, heldout.json

A 2-layer GPT-2-layout model is trained on sequences that tiny_common.py generates from --seed (chains of a few
words with successors of their own, random words and a small grammar's sentences with spans copied later), on one
CPU thread with PyTorch's deterministic algorithms, so the same seed gives the same bits on the same machine with
the same libraries. Needs Debian's python3-torch (PyTorch 1.13), run as /usr/bin/python3, and an optimised BLAS
(apt-get install -y python3-torch libopenblas0-serial): with Debian's reference BLAS, which python3-torch alone
brings, training is about 7 times slower and its bits differ.
"""

import argparse
import hashlib
import os
import sys
import tempfile
import time

import numpy as np
import torch

import evaluate_tiny
import tiny_common as tc

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_OUT = os.path.join(REPO, "web", "public", "models", "induction")
PROBE_SEED = 7  # a few held-out-style sequences to watch the induction heads form (not evaluate_tiny's seed)
FILES = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=DEFAULT_OUT, help="folder to write the checkpoint into")
    p.add_argument("--seed", type=int, default=26, help="seed of the weights' initialisation and of the data")
    p.add_argument("--steps", type=int, default=8000)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--text-fraction", type=float, default=0.2,
                   help="share of the other sequences made of the grammar's sentences rather than random words")
    p.add_argument("--chain-fraction", type=float, default=0.4,
                   help="share of training sequences that are chains (tiny_common.chain)")
    p.add_argument("--n-layer", type=int, default=2)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--n-embd", type=int, default=64)
    p.add_argument("--n-positions", type=int, default=64)
    p.add_argument("--check", action="store_true",
                   help="retrain into a temporary folder and compare with the files in --out (exit 1 if they differ)")
    return p.parse_args()


def deterministic(seed):
    """One thread and PyTorch's deterministic kernels: the same seed then gives the same bits on this machine."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)


def learning_rate(step, steps, peak):
    """Linear warm-up over the first 5% of the steps, the peak until 80%, then linearly down to a tenth of it."""
    warmup, decay = max(1, steps // 20), int(steps * 0.8)
    if step < warmup:
        return peak * (step + 1) / warmup
    if step < decay:
        return peak
    return peak * (1 - 0.9 * (step - decay) / max(1, steps - decay))


def progress(model, probe):
    """The copy accuracy on the probe sequences and the best previous-token and induction scores of any head."""
    model.eval()
    scores = evaluate_tiny.head_scores(model, probe)
    accuracy = evaluate_tiny.copying(model, probe)["accuracy"]
    model.train()
    return (f"copy top-1 {accuracy:.2f}, best prev-token {scores['previousToken'].max():.2f}, "
            f"best induction {scores['induction'].max():.2f}")


def blas_in_use():
    """The BLAS library this process has loaded (OpenBLAS or the reference one: their results differ in the last bits)."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    return ", ".join(sorted(paths)) or "none found"


def train(args):
    deterministic(args.seed)
    print(f"BLAS: {blas_in_use()}")
    cfg = tc.Config(n_layer=args.n_layer, n_head=args.n_head, n_embd=args.n_embd, n_positions=args.n_positions)
    model = tc.TinyGPT2(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=0.0)
    rng = np.random.Generator(np.random.PCG64(args.seed))
    probe = evaluate_tiny.heldout(PROBE_SEED, 16, cfg.n_positions)
    started = time.time()
    for step in range(args.steps):
        for group in opt.param_groups:
            group["lr"] = learning_rate(step, args.steps, args.lr)
        ids = tc.training_batch(rng, args.batch, cfg.n_positions, args.chain_fraction, args.text_fraction)
        logits, _ = model(ids)
        loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, cfg.vocab_size), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 500 == 0 or step == args.steps - 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  {progress(model, probe)}  ({time.time() - started:.0f} s)",
                  flush=True)
    print(f"trained {args.steps} steps in {time.time() - started:.0f} s")
    return cfg, model


def write_checkpoint(folder, cfg, model, args):
    """config.json, model.safetensors, tokenizer.json and tokenizer_config.json, as a Hub GPT-2 folder has them."""
    os.makedirs(folder, exist_ok=True)
    tc.write_json(os.path.join(folder, "config.json"), cfg.to_json())
    metadata = {"format": "pt", "trained_by": "scripts/train/train_tiny.py", "seed": str(args.seed),
                "steps": str(args.steps)}
    tc.write_safetensors(os.path.join(folder, "model.safetensors"), tc.hub_state_dict(model), metadata)
    tc.write_json(os.path.join(folder, "tokenizer.json"), tc.tokenizer_json())
    tc.write_json(os.path.join(folder, "tokenizer_config.json"), tc.tokenizer_config_json(cfg.n_positions))


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check(args, cfg, model):
    """Compares the freshly trained files with those in --out; on a difference, says how far the weights are."""
    with tempfile.TemporaryDirectory() as tmp:
        write_checkpoint(tmp, cfg, model, args)
        same = True
        for name in FILES:
            fresh, committed = sha256(os.path.join(tmp, name)), sha256(os.path.join(args.out, name))
            print(f"{name:22s} {'same' if fresh == committed else 'DIFFERENT'}  {fresh}")
            same &= fresh == committed
        if not same:
            a = tc.read_safetensors(os.path.join(tmp, "model.safetensors"))
            b = tc.read_safetensors(os.path.join(args.out, "model.safetensors"))
            worst = max(float(np.abs(a[k] - b[k]).max()) for k in a) if a.keys() == b.keys() else float("inf")
            print(f"largest weight difference: {worst:.3g} (run evaluate_tiny.py on both to compare the scores)")
    print("check: " + ("the same bits" if same else "DIFFERENT from the committed files"))
    return same


def main():
    args = parse_args()
    cfg, model = train(args)
    if args.check:
        sys.exit(0 if check(args, cfg, model) else 1)
    write_checkpoint(args.out, cfg, model, args)
    for name in FILES:
        path = os.path.join(args.out, name)
        print(f"wrote {os.path.relpath(path, REPO)} ({os.path.getsize(path)} bytes, sha256 {sha256(path)})")


if __name__ == "__main__":
    main()
