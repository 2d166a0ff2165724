#!/usr/bin/python3
"""Trains the tiny induction model shipped in web/public/models/induction/ (a development tool, never run by npm).

    nice -n 19 /usr/bin/python3 scripts/train/train_tiny.py            # trains and writes the four files
    nice -n 19 /usr/bin/python3 scripts/train/train_tiny.py --check    # retrains into a temporary folder and
                                                                       # compares each file's SHA-256 with the
                                                                       # committed one

A 2-layer GPT-2-layout model is trained on sequences that tiny_common.py generates from --seed (random words and a
small grammar's sentences, with spans repeated later in the sequence), on one CPU thread with PyTorch's deterministic
algorithms, so the same seed gives the same bits on the same machine. Then evaluate_tiny.py measures its heads.
Needs Debian's python3-torch (PyTorch 1.13): run it as /usr/bin/python3.
"""

import argparse
import hashlib
import math
import os
import sys
import tempfile
import time

import numpy as np
import torch

import tiny_common as tc

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_OUT = os.path.join(REPO, "web", "public", "models", "induction")
FILES = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=DEFAULT_OUT, help="folder to write the checkpoint into")
    p.add_argument("--seed", type=int, default=26, help="seed of the weights' initialisation and of the data")
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--text-fraction", type=float, default=0.25,
                   help="share of training sequences made of the grammar's sentences rather than random words")
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
    """Linear warm-up over the first 5% of the steps, then a cosine down to a tenth of the peak."""
    warmup = max(1, steps // 20)
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train(args):
    deterministic(args.seed)
    cfg = tc.Config(n_layer=args.n_layer, n_head=args.n_head, n_embd=args.n_embd, n_positions=args.n_positions)
    model = tc.TinyGPT2(cfg)
    # No weight decay on biases, LayerNorms and embeddings (GPT-2's usual split).
    decay = [p for n, p in model.named_parameters() if n.endswith("weight") and p.dim() == 2 and "wte" not in n
             and "wpe" not in n]
    rest = [p for n, p in model.named_parameters() if not any(p is q for q in decay)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98))
    rng = np.random.Generator(np.random.PCG64(args.seed))
    started = time.time()
    for step in range(args.steps):
        for group in opt.param_groups:
            group["lr"] = learning_rate(step, args.steps, args.lr)
        ids = tc.training_batch(rng, args.batch, cfg.n_positions, args.text_fraction)
        logits, _ = model(ids)
        loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, cfg.vocab_size), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 250 == 0 or step == args.steps - 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  ({time.time() - started:.0f} s)", flush=True)
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
