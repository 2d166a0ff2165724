"""Shared parts of the tiny induction model's trainer and evaluator (a development tool, never run by npm).

Everything here is deterministic from its arguments: the vocabulary, the tokenizer.json, the GPT-2-layout model,
the data generators (numpy's PCG64 from a seed) and the safetensors reader and writer. Needs Debian's
python3-torch (PyTorch 1.13) and python3-numpy, run as /usr/bin/python3.
"""

import json
import math
import struct

import numpy as np
import torch
from torch import nn

# --- The vocabulary: whole lower-case English words, so that every token on the page is readable. -----------------

ENDOFTEXT = "<|endoftext|>"  # GPT-2's one special token: bos_token_id and eos_token_id point at it
UNK = "<unk>"  # any word the vocabulary does not hold
SPECIALS = [ENDOFTEXT, UNK]
PUNCTUATION = [".", ",", "?", "!"]

# Word classes, used by the small grammar below; the vocabulary is all of them, in this order, without repeats.
NAMES = "alice bob carol dave emma frank grace henry iris jack kate leo mia noah olive paul rose sam tom uma vera will zoe max".split()
DETERMINERS = "the a my your his her our their this that every one some no".split()
SUBJECT_PRONOUNS = "i you he she it we they".split()
NOUNS = """
cat dog bird fish horse cow pig sheep mouse rabbit fox wolf bear lion tiger frog duck goat owl bee
apple bread cake milk tea coffee water soup rice egg cheese pie
book pen cup plate chair table bed door window box bag ball hat coat shoe key lamp clock phone
car bus train boat bike road house room garden tree flower river hill lake sea sky sun moon star rain snow wind
city town park shop school farm field forest beach bridge island mountain street village castle tower
letter song story game map picture ring stone ship kite drum bell basket blanket candle mirror rope
teacher doctor farmer baker king queen child friend sister brother mother father girl boy man woman
""".split()
ADJECTIVES = """
big small red blue green old new happy sad quiet loud warm cold dark bright little tall short fast slow soft
hard long round clean dirty empty full heavy sweet brave kind young wild black white yellow brown pink
""".split()
TRANSITIVE_VERBS = """
saw liked found took made gave ate drank read wrote painted bought sold carried opened closed washed lost kept
held watched followed helped called met visited chased caught pulled pushed dropped picked built fixed moved
touched loved wanted needed
""".split()
INTRANSITIVE_VERBS = "slept ran walked sang danced jumped smiled laughed waited sat stood fell swam flew cried left".split()
PREPOSITIONS = "on in under near behind with by over into from to at across beside".split()
ADVERBS = "quickly slowly today again soon there here now later once".split()
CONNECTIVES = "and but then so because when after before while or".split()
OTHER_WORDS = "is was are were has had will can not very too also just only all what where who why how".split()

WORD_CLASSES = [NAMES, DETERMINERS, SUBJECT_PRONOUNS, NOUNS, ADJECTIVES, TRANSITIVE_VERBS, INTRANSITIVE_VERBS,
                PREPOSITIONS, ADVERBS, CONNECTIVES, OTHER_WORDS]


def vocabulary():
    """The tokens in id order: the two specials, the punctuation, then each word class's new words."""
    tokens = SPECIALS + PUNCTUATION
    for words in WORD_CLASSES:
        tokens += [w for w in words if w not in tokens]
    return tokens


VOCAB = vocabulary()
TOKEN_ID = {token: i for i, token in enumerate(VOCAB)}
FIRST_CONTENT_ID = len(SPECIALS)  # random sequences draw from ids FIRST_CONTENT_ID .. len(VOCAB) - 1


def tokenizer_json():
    """tokenizer.json in the Hugging Face tokenizers format.

    A WordPiece model whose vocabulary holds whole words only (no "##" pieces), after a Lowercase normalizer and the
    Whitespace pre-tokenizer (words and runs of punctuation): so each word is one token and any other word is <unk>.
    WordPiece rather than WordLevel because @huggingface/tokenizers 0.2.0 reads a WordLevel model's unk_token only
    from tokenizer_config.json and yields `undefined` ids without it; WordPiece reads its unk_token from here.
    """
    def added(token_id, content):
        return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": False, "special": True}

    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added(TOKEN_ID[t], t) for t in SPECIALS],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": UNK, "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": TOKEN_ID},
    }


def tokenizer_config_json(n_positions):
    """tokenizer_config.json, as the Hub's GPT-2 folders have one: the special tokens and the longest input."""
    return {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": ENDOFTEXT, "eos_token": ENDOFTEXT,
            "unk_token": UNK, "model_max_length": n_positions, "clean_up_tokenization_spaces": True}


# --- The model: GPT-2's layout and arithmetic (transformers' GPT2LMHeadModel), small. --------------------------------

class Config:
    """The sizes of the model; `to_json` writes them as transformers' GPT2Config does."""

    def __init__(self, n_layer=2, n_head=4, n_embd=64, n_positions=64, vocab_size=len(VOCAB)):
        self.n_layer, self.n_head, self.n_embd = n_layer, n_head, n_embd
        self.n_positions, self.vocab_size = n_positions, vocab_size
        self.layer_norm_epsilon = 1e-5

    def to_json(self):
        return {
            "activation_function": "gelu_new",
            "architectures": ["GPT2LMHeadModel"],
            "attn_pdrop": 0.0,
            "bos_token_id": TOKEN_ID[ENDOFTEXT],
            "embd_pdrop": 0.0,
            "eos_token_id": TOKEN_ID[ENDOFTEXT],
            "initializer_range": 0.02,
            "layer_norm_epsilon": self.layer_norm_epsilon,
            "model_type": "gpt2",
            "n_ctx": self.n_positions,
            "n_embd": self.n_embd,
            "n_head": self.n_head,
            "n_inner": None,
            "n_layer": self.n_layer,
            "n_positions": self.n_positions,
            "resid_pdrop": 0.0,
            "scale_attn_weights": True,
            "tie_word_embeddings": True,
            "torch_dtype": "float32",
            "use_cache": True,
            "vocab_size": self.vocab_size,
        }


def gelu_new(x):
    """GPT-2's GELU, the tanh approximation."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Conv1D(nn.Module):
    """GPT-2's Conv1D: a linear layer whose weight is stored [in, out] (y = x W + b)."""

    def __init__(self, n_in, n_out, std):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * std)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


class Block(nn.Module):
    """One pre-LN layer: x + attn(ln_1(x)), then + mlp(ln_2(·)). Attribute names are transformers' (h.{l}.…)."""

    def __init__(self, cfg):
        super().__init__()
        # 1/sqrt(fan-in), not GPT-2's 0.02 (made for d_model 768): at d_model 64, 0.02 leaves every attention
        # pattern uniform and the gradients that would shape q and k tiny, and induction heads formed far later.
        d = cfg.n_embd
        std = 1 / math.sqrt(d)
        proj_std = std / math.sqrt(2 * cfg.n_layer)  # GPT-2's scaled init of the residual projections
        self.n_head = cfg.n_head
        self.ln_1 = nn.LayerNorm(d, eps=cfg.layer_norm_epsilon)
        self.attn = nn.Module()
        self.attn.c_attn = Conv1D(d, 3 * d, std)  # q | k | v side by side
        self.attn.c_proj = Conv1D(d, d, proj_std)
        self.ln_2 = nn.LayerNorm(d, eps=cfg.layer_norm_epsilon)
        self.mlp = nn.Module()
        self.mlp.c_fc = Conv1D(d, 4 * d, std)
        self.mlp.c_proj = Conv1D(4 * d, d, proj_std / 2)  # fan-in 4d

    def forward(self, x, head_mask=None):
        """x [batch, n, d]; head_mask [heads] multiplies each head's weights (0 ablates the head, as HF's head_mask).
        Returns the new x and the attention weights [batch, heads, n, n]."""
        b, n, d = x.shape
        h = self.n_head
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(d, dim=2)
        q, k, v = (t.view(b, n, h, d // h).transpose(1, 2) for t in (q, k, v))  # [batch, heads, n, head_dim]
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        causal = torch.ones(n, n, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, torch.finfo(scores.dtype).min)
        weights = scores.softmax(dim=-1)
        if head_mask is not None:
            weights = weights * head_mask.view(1, h, 1, 1)
        heads = (weights @ v).transpose(1, 2).reshape(b, n, d)  # the heads' outputs side by side
        x = x + self.attn.c_proj(heads)
        x = x + self.mlp.c_proj(gelu_new(self.mlp.c_fc(self.ln_2(x))))
        return x, weights


class TinyGPT2(nn.Module):
    """GPT2LMHeadModel's arithmetic: learned positions, pre-LN blocks, final LayerNorm, LM head tied to wte."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.transformer = nn.Module()
        self.transformer.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.transformer.wpe = nn.Embedding(cfg.n_positions, cfg.n_embd)
        nn.init.normal_(self.transformer.wte.weight, std=0.02)
        nn.init.normal_(self.transformer.wpe.weight, std=0.02)
        self.transformer.h = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.transformer.ln_f = nn.LayerNorm(cfg.n_embd, eps=cfg.layer_norm_epsilon)

    def forward(self, ids, ablate=()):
        """ids [batch, n] (int64); ablate: (layer, head) pairs whose outputs are zeroed.
        Returns logits [batch, n, vocab] and the attention weights, one [batch, heads, n, n] per layer."""
        t = self.transformer
        x = t.wte(ids) + t.wpe(torch.arange(ids.shape[1]))
        attentions = []
        for layer, block in enumerate(t.h):
            mask = torch.ones(self.cfg.n_head)
            for (l, h) in ablate:
                if l == layer:
                    mask[h] = 0.0
            x, weights = block(x, mask)
            attentions.append(weights)
        return t.ln_f(x) @ t.wte.weight.T, attentions


def hub_state_dict(model):
    """The tensors as transformers saves GPT2LMHeadModel: transformer.… names, F32, the tied lm_head left out."""
    return {name: p.detach().contiguous() for name, p in model.named_parameters()}


def load_model(cfg, tensors):
    """A TinyGPT2 holding the tensors read from a model.safetensors."""
    model = TinyGPT2(cfg)
    model.load_state_dict({name: torch.from_numpy(a.copy()) for name, a in tensors.items()})
    model.eval()
    return model


def config_from_json(c):
    return Config(n_layer=c["n_layer"], n_head=c["n_head"], n_embd=c["n_embd"], n_positions=c["n_positions"],
                  vocab_size=c["vocab_size"])


# --- safetensors, written and read with a few lines (the safetensors pip package is not on this machine). ----------

def write_safetensors(path, tensors, metadata=None):
    """8-byte little-endian header length, the JSON header (tensors in name order, padded with spaces to a multiple
    of 8 bytes as the safetensors library does), then each tensor's F32 little-endian bytes."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name in sorted(tensors):
        data = tensors[name].numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def read_safetensors(path):
    """{name: numpy float32 array} from an F32 safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    out = {}
    for name, info in header.items():
        assert info["dtype"] == "F32", f"{name}: only F32 is read here"
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + start:8 + n + end], dtype="<f4").reshape(info["shape"])
    return out


def write_json(path, obj):
    """JSON with two-space indentation and a final newline (the same bytes on every run)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


# --- Data. ------------------------------------------------------------------------------------------------------

def _pick(rng, words):
    return TOKEN_ID[words[rng.integers(len(words))]]


def _noun_phrase(rng, subject):
    r = rng.random()
    if r < 0.25:
        return [_pick(rng, NAMES)]
    if subject and r < 0.4:
        return [_pick(rng, SUBJECT_PRONOUNS)]
    phrase = [_pick(rng, DETERMINERS)]
    if rng.random() < 0.5:
        phrase.append(_pick(rng, ADJECTIVES))
    return phrase + [_pick(rng, NOUNS)]


def sentence(rng):
    """One sentence of the small grammar, e.g. "the red cat saw a ball under the table ." (token ids)."""
    words = _noun_phrase(rng, subject=True)
    if rng.random() < 0.6:
        words += [_pick(rng, TRANSITIVE_VERBS)] + _noun_phrase(rng, subject=False)
    else:
        words.append(_pick(rng, INTRANSITIVE_VERBS))
    r = rng.random()
    if r < 0.4:
        words += [_pick(rng, PREPOSITIONS)] + _noun_phrase(rng, subject=False)
    elif r < 0.55:
        words.append(_pick(rng, ADVERBS))
    if rng.random() < 0.2:
        return words + [TOKEN_ID[","], _pick(rng, CONNECTIVES)] + sentence(rng)
    return words + [TOKEN_ID[PUNCTUATION[rng.choice(4, p=[0.8, 0.0, 0.1, 0.1])]]]


def chain(rng, n):
    """n ids that follow a successor rule of their own: a few random words, each with a random successor among them,
    followed 70% of the time (else a random one of the few). Predicting a token then needs the token after an
    earlier occurrence of the current one: a repeat of two tokens, which only a look-back of one position explains."""
    words = rng.choice(np.arange(FIRST_CONTENT_ID, len(VOCAB)), size=int(rng.integers(6, 17)), replace=False)
    successor = rng.integers(0, len(words), size=len(words))
    out = [int(rng.integers(len(words)))]
    for _ in range(n - 1):
        out.append(int(successor[out[-1]]) if rng.random() < 0.7 else int(rng.integers(len(words))))
    return words[out]


def training_sequence(rng, n, chain_fraction, text_fraction):
    """n token ids, of three kinds: a chain (chain_fraction of the time); else sentences of the grammar
    (text_fraction of the rest) or uniformly random words, in which one to three spans of 2–24 tokens are each copied
    to a later place. Copies at any offset and of any length, and chains, reward only the induction mechanism (a
    previous-token head, then a head that attends to the token after an earlier occurrence of the current one)."""
    if rng.random() < chain_fraction:
        return chain(rng, n)
    if rng.random() < text_fraction:
        seq = []
        while len(seq) < n:
            seq += sentence(rng)
        seq = np.array(seq[:n])
    else:
        seq = rng.integers(FIRST_CONTENT_ID, len(VOCAB), size=n)
    for _ in range(rng.integers(1, 4)):
        span = int(rng.integers(2, 25))
        a = int(rng.integers(0, n - 2 * span + 1))
        b = int(rng.integers(a + span, n - span + 1))
        seq[b:b + span] = seq[a:a + span]
    return seq


def training_batch(rng, batch, n, chain_fraction, text_fraction):
    return torch.from_numpy(np.stack([training_sequence(rng, n, chain_fraction, text_fraction)
                                      for _ in range(batch)]).astype(np.int64))


def heldout_sequence(rng, n):
    """A held-out sequence of n distinct random words in which one span of 8–20 tokens is repeated after a gap of
    0–20, the first copy starting anywhere from position 1. Only the repeat recurs, so "the earlier occurrence of
    the current token" is always one position. Returns (ids, first, second, length): the span is
    ids[first:first+length] == ids[second:second+length]."""
    span, gap = int(rng.integers(8, 21)), int(rng.integers(0, 21))
    first = int(rng.integers(1, n - 2 * span - gap + 1))
    second = first + span + gap
    ids = rng.choice(np.arange(FIRST_CONTENT_ID, len(VOCAB)), size=n, replace=False)
    ids[second:second + span] = ids[first:first + span]
    return [int(i) for i in ids], first, second, span
