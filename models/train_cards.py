#!/usr/bin/python3
"""models/train_cards.py: trains the playing-card classifier (a card's rank,
suit, and whether the cell shows a face, a back or the table) on patches
from models/cards_patches, and exports it for vision/classify.h.

  models/train_cards.py --data DIR[,DIR...] --out models/cards.onnx
      [--hold 3,8] [--epochs N] [--seed S] [--names FILE]

A patch is a card's two top corners side by side (vision/cards.h,
vis_cards_corners): wherever a deck prints its index, one of them shows
it upright.  The text is not mirror-symmetric and is read upright, so the
augmentation changes only what a camera changes (exposure, white
balance, contrast, noise, focus), never flips or turns.

With --hold, the deck designs named are left out of training and the
figures written into the manifest are measured on them alone (decks the
network never saw); the shipped model is then trained again on every
deck (--hold none) and carries the held-out figures of the run before it
(--figures FILE).  Deterministic for one torch build.

Needs Debian's python3-torch (1.13) and python3-numpy; running and
testing tablecam never do.
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchnet import arguments, block, export, fit, load, to_tensor  # noqa: E402

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["spades", "hearts", "diamonds", "clubs"]  # rules/rules.h order
FACES = ["up", "down", "table"]
NR, NS, NF = len(RANKS), len(SUITS), len(FACES)


class Net(nn.Module):
    """Four conv blocks at 64, 32, 16 and 8 pixels (strokes, glyph parts,
    glyphs, the index's layout), pooled to 4x4, and three heads' logits,
    concatenated (rank, suit, face).  Width 8 is about 4.5 M multiply-adds
    a patch, two patches a card."""

    def __init__(self, w=8):
        super().__init__()
        self.c1 = block(3, w)
        self.c2 = block(w, 2 * w)
        self.c3 = block(2 * w, 4 * w)
        self.c4 = block(4 * w, 8 * w)
        self.drop = nn.Dropout(0.2)
        self.f1 = nn.Linear(8 * w * 4 * 4, 64)
        self.f2 = nn.Linear(64, NR + NS + NF)

    def forward(self, x):
        x = F.max_pool2d(self.c1(x), 2)
        x = F.max_pool2d(self.c2(x), 2)
        x = F.max_pool2d(self.c3(x), 2)
        x = F.max_pool2d(self.c4(x), 2)
        x = torch.flatten(x, 1)
        return self.f2(self.drop(F.relu(self.f1(x))))


def losses(out, yb):
    """Face on every patch; rank and suit on face-up ones only."""
    loss = F.cross_entropy(out[:, NR + NS:], yb[:, 2])
    up = yb[:, 2] == 0
    if up.any():
        loss = loss + F.cross_entropy(out[up, :NR], yb[up, 0] - 1) + \
            F.cross_entropy(out[up, NR:NR + NS], yb[up, 1])
    return loss


def augment(x, g):
    n = x.shape[0]
    gain = 1 + 0.25 * (torch.rand(n, 1, 1, 1, generator=g) * 2 - 1)
    wb = 1 + 0.10 * (torch.rand(n, 3, 1, 1, generator=g) * 2 - 1)
    mid = x.mean((1, 2, 3), keepdim=True)
    contrast = 1 + 0.2 * (torch.rand(n, 1, 1, 1, generator=g) * 2 - 1)
    x = ((x - mid) * contrast + mid) * gain * wb
    soft = torch.rand(n, generator=g) < 0.3
    if soft.any():
        k = torch.tensor([0.25, 0.5, 0.25])
        k2 = (k[:, None] * k[None, :]).expand(3, 1, 3, 3).contiguous()
        x[soft] = F.conv2d(F.pad(x[soft], (1, 1, 1, 1), mode="replicate"), k2, groups=3)
    x = x + 0.02 * torch.randn(x.shape, generator=g)
    return x.clamp(0, 1)


def evaluate(net, x, y, mean, std):
    net.eval()
    with torch.no_grad():
        out = []
        for i in range(0, len(x), 2048):
            out.append(net((x[i:i + 2048] - mean) / std))
        out = torch.cat(out)
    pr = F.softmax(out[:, :NR], 1)
    ps = F.softmax(out[:, NR:NR + NS], 1)
    pf = F.softmax(out[:, NR + NS:], 1)
    cr, rr = pr.max(1)
    cs, ss = ps.max(1)
    cf, ff = pf.max(1)
    yy = torch.from_numpy(y)
    yr, ys, yf = yy[:, 0] - 1, yy[:, 1], yy[:, 2]
    up = yf == 0
    right = (ff == yf) & (~up | ((rr == yr) & (ss == ys)))
    conf = torch.where(ff == 0, cf * cr * cs, cf)

    def part(mask):
        m = int(mask.sum())
        return {"patches": m, "error": float(1 - right[mask].float().mean()) if m else None}
    fig = {
        "patches": int(len(y)),
        "error": float(1 - right.float().mean()),
        "face_error": float((ff != yf).float().mean()),
        "rank_error_up": float((rr[up] != yr[up]).float().mean()) if up.any() else None,
        "suit_error_up": float((ss[up] != ys[up]).float().mean()) if up.any() else None,
        "rank_confusion": [[int(((yr == a) & (rr == b) & up).sum()) for b in range(NR)]
                           for a in range(NR)],
        "suit_confusion": [[int(((ys == a) & (ss == b) & up).sum()) for b in range(NS)]
                           for a in range(NS)],
        "face_confusion": [[int(((yf == a) & (ff == b)).sum()) for b in range(NF)]
                           for a in range(NF)],
    }
    sure = conf >= 0.9
    fig["read_at_0.9"] = int(sure.sum())
    fig["right_at_0.9"] = float(right[sure].float().mean()) if sure.any() else None
    fig["by_design"] = {str(d): part(yy[:, 3] == d) for d in sorted(set(y[:, 3].tolist()))}
    fig["by_px_per_mm"] = {"%.1f-%.1f" % (lo, hi): part((yy[:, 4] >= lo * 40) & (yy[:, 4] < hi * 40))
                           for lo, hi in ((0.6, 1.0), (1.0, 1.3), (1.3, 1.6), (1.6, 9.9))}
    fig["by_setup"] = {"good": part(yy[:, 7] == 1), "any": part(yy[:, 7] == 0)}
    fig["reliability"] = [dict(conf=[lo, hi], **part((conf >= lo) & (conf < hi)))
                          for lo, hi in ((0, 0.5), (0.5, 0.9), (0.9, 0.99), (0.99, 1.01))]
    return fig


def main():
    ap = arguments(12)
    ap.add_argument("--names", default=None,
                    help="JSON list of the designs' deck ids (default: the patches' own)")
    ap.add_argument("--min-ppm", type=float, default=0.6,
                    help="figures count cards seen at this many px/mm or more (the referee "
                         "asks for a better camera below 0.6)")
    ap.add_argument("--max-blur", type=float, default=1.55,
                    help="and with less focus blur than this, mm (the referee's limit)")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(a.seed)

    px, y, meta = load(a.data.split(","))
    hold = [] if a.hold == "none" else [int(v) for v in a.hold.split(",")]
    names = json.load(open(a.names)) if a.names else meta[0].get("decks")
    test = np.isin(y[:, 3], hold)
    seen = (y[:, 4] >= a.min_ppm * 40) & (y[:, 5] < a.max_blur * 40)
    test_ok = test & seen
    x = to_tensor(px)
    del px
    xtr, ytr = x[~test], y[~test]
    mean = xtr.mean((0, 2, 3)).view(1, 3, 1, 1)
    std = xtr.std((0, 2, 3)).view(1, 3, 1, 1)
    net = Net(a.width)

    def report(ep):
        f = evaluate(net, x[test_ok], y[test_ok], mean, std)
        return "; held-out decks %s: error %.4f (face %.4f, rank %.4f, suit %.4f)" % (
            hold, f["error"], f["face_error"], f["rank_error_up"], f["suit_error_up"])

    fit(net, xtr, ytr, mean, std, a.epochs, g, losses, report if hold else None, aug=augment)

    figures = {}
    if hold:
        figures = {"held_out_designs": hold,
                   "held_out_decks": [names[h] for h in hold] if names else None,
                   "min_px_per_mm": a.min_ppm, "max_blur_mm": a.max_blur,
                   **evaluate(net, x[test_ok], y[test_ok], mean, std)}
    elif a.figures:
        figures = json.load(open(a.figures))
    designs = sorted(set(int(v) for v in y[~test, 3]))
    trained_on = {"designs": designs,
                  "decks": [names[d] for d in designs] if names else None,
                  "patches": int(len(xtr)), "data": [m for m in meta],
                  "epochs": a.epochs, "seed": a.seed, "width": a.width,
                  "torch": torch.__version__}
    export(net, x.shape[2], a.out, mean, std,
           [("rank", RANKS), ("suit", SUITS), ("face", FACES)], trained_on, figures,
           "train_cards")
    if hold:
        print(json.dumps({k: v for k, v in figures.items() if "confusion" not in k}, indent=1))


if __name__ == "__main__":
    main()
