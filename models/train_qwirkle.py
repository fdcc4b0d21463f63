#!/usr/bin/python3
"""models/train_qwirkle.py: trains the Qwirkle cube classifier (shape and
colour of a cube's top face) on patches from models/qwirkle_patches, and
exports it for vision/classify.h.

  models/train_qwirkle.py --data DIR[,DIR...] --out models/qwirkle.onnx
      [--hold 3,8] [--epochs N] [--seed S]

With --hold, the designs named are left out of training and the figures
written into the manifest are measured on them alone (designs the network
never saw); the shipped model is then trained again on every design
(--hold none) and carries the held-out figures of the run before it
(--figures FILE).  Deterministic for one torch build: fixed seeds, one
thread order.

Needs Debian's python3-torch (1.13) and python3-numpy; running and
testing tablecam never do.
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

# rules/rules.h order (enum rules_shape, enum rules_color)
SHAPES = ["circle", "square", "diamond", "clover", "star4", "star8"]
COLORS = ["red", "orange", "yellow", "green", "blue", "purple"]


def load(dirs):
    xs, ys = [], []
    meta = []
    for d in dirs:
        m = json.load(open(os.path.join(d, "patches.json")))
        s = m["size"]
        raw = np.fromfile(os.path.join(d, "patches.bin"), dtype=np.uint8)
        raw = raw.reshape(-1, m["record_bytes"])
        xs.append(raw[:, 8:].reshape(-1, s, s, 3))
        ys.append(raw[:, :8].astype(np.int64))
        meta.append(m)
    return np.concatenate(xs), np.concatenate(ys), meta


def block(cin, cout):
    """A 3x3 convolution, batch-normalised (folded into the convolution when
    OpenCV imports the exported graph), and its ReLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU())


FEATURE_NODE = "/Relu"


class Net(nn.Module):
    """Four conv blocks, each at half the size of the one before (32, 16, 8
    and 4 pixels: a symbol's outline, its parts, their layout), and two
    heads' logits, concatenated (shape, colour).  Width w = 8 is about 1.2
    M multiply-adds a patch: what OpenCV's dnn runs in the reader's 0.1 ms
    a piece on one core."""

    def __init__(self, w=8):
        super().__init__()
        self.c1 = block(3, w)
        self.c2 = block(w, 2 * w)
        self.c3 = block(2 * w, 4 * w)
        self.c4 = block(4 * w, 8 * w)
        self.drop = nn.Dropout(0.2)
        self.f1 = nn.Linear(8 * w * 4 * 4, 64)
        self.f2 = nn.Linear(64, len(SHAPES) + len(COLORS))

    def forward(self, x):
        x = F.max_pool2d(self.c1(x), 2)
        x = F.max_pool2d(self.c2(x), 2)
        x = F.max_pool2d(self.c3(x), 2)
        x = torch.flatten(self.c4(x), 1)
        return self.f2(self.drop(F.relu(self.f1(x))))


def augment(x, g):
    """Changes a camera makes that the renderer's set may not span:
    exposure, white balance, contrast, noise, a softer focus; and the
    symmetries every symbol has (mirror images, quarter turns)."""
    n = x.shape[0]
    gain = 1 + 0.25 * (torch.rand(n, 1, 1, 1, generator=g) * 2 - 1)
    wb = 1 + 0.10 * (torch.rand(n, 3, 1, 1, generator=g) * 2 - 1)
    x = x * gain * wb
    soft = torch.rand(n, generator=g) < 0.3
    if soft.any():
        k = torch.tensor([0.25, 0.5, 0.25])
        k2 = (k[:, None] * k[None, :]).expand(3, 1, 3, 3).contiguous()
        x[soft] = F.conv2d(F.pad(x[soft], (1, 1, 1, 1), mode="replicate"), k2, groups=3)
    x = x + 0.02 * torch.randn(x.shape, generator=g)
    flip = torch.rand(n, generator=g) < 0.5
    x[flip] = torch.flip(x[flip], dims=[3])
    turn = torch.randint(0, 4, (1,), generator=g).item()
    x = torch.rot90(x, turn, dims=[2, 3])
    return x.clamp(0, 1)


def to_tensor(px):
    return torch.from_numpy(px).permute(0, 3, 1, 2).float() / 255.0


def evaluate(net, x, y, mean, std):
    net.eval()
    with torch.no_grad():
        out = []
        for i in range(0, len(x), 2048):
            out.append(net((x[i:i + 2048] - mean) / std))
        out = torch.cat(out)
    ps = F.softmax(out[:, :6], 1)
    pc = F.softmax(out[:, 6:], 1)
    cs, ss = ps.max(1)
    cc, sc = pc.max(1)
    ys, yc = torch.from_numpy(y[:, 0]), torch.from_numpy(y[:, 1])
    right = (ss == ys) & (sc == yc)
    conf = cs * cc
    fig = {
        "pieces": int(len(y)),
        "piece_error": float(1 - right.float().mean()),
        "shape_error": float((ss != ys).float().mean()),
        "color_error": float((sc != yc).float().mean()),
        "shape_confusion": [[int(((ys == a) & (ss == b)).sum()) for b in range(6)] for a in range(6)],
        "color_confusion": [[int(((yc == a) & (sc == b)).sum()) for b in range(6)] for a in range(6)],
    }
    sure = conf >= 0.9
    fig["read_at_0.9"] = int(sure.sum())
    fig["right_at_0.9"] = float(right[sure].float().mean()) if sure.any() else None
    # where the errors are: by design, by how finely the camera sees the
    # cube, by the camera's set-up
    yy = torch.from_numpy(y)

    def part(mask):
        m = int(mask.sum())
        return {"pieces": m, "piece_error": float(1 - right[mask].float().mean()) if m else None}
    fig["by_design"] = {str(d): part(yy[:, 2] == d) for d in sorted(set(y[:, 2].tolist()))}
    fig["by_px_per_mm"] = {"%.1f-%.1f" % (lo, hi): part((yy[:, 3] >= lo * 40) & (yy[:, 3] < hi * 40))
                           for lo, hi in ((0.6, 1.0), (1.0, 1.3), (1.3, 1.6), (1.6, 9.9))}
    fig["by_setup"] = {"good": part(yy[:, 6] == 1), "any": part(yy[:, 6] == 0)}
    # reliability: of the pieces read at conf in [lo, hi), how many right
    fig["reliability"] = [dict(conf=[lo, hi], **part((conf >= lo) & (conf < hi)))
                          for lo, hi in ((0, 0.5), (0.5, 0.9), (0.9, 0.99), (0.99, 1.01))]
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hold", default="none")
    ap.add_argument("--epochs", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--width", type=int, default=8, help="channels of the first block")
    ap.add_argument("--figures", default=None, help="held-out figures (JSON) to carry")
    ap.add_argument("--min-ppm", type=float, default=0.6,
                    help="figures count cubes seen at this many px/mm or more (the referee "
                         "asks for a better camera below 0.6)")
    ap.add_argument("--max-blur", type=float, default=1.55,
                    help="and with less focus blur than this, mm (the referee's limit)")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(a.seed)

    px, y, meta = load(a.data.split(","))
    hold = [] if a.hold == "none" else [int(v) for v in a.hold.split(",")]
    test = np.isin(y[:, 2], hold)
    # held-out figures: the cubes a camera the referee accepts sees
    seen = (y[:, 3] >= a.min_ppm * 40) & (y[:, 4] < a.max_blur * 40)
    test_ok = test & seen
    x = to_tensor(px)
    xtr, ytr = x[~test], y[~test]
    mean = xtr.mean((0, 2, 3)).view(1, 3, 1, 1)
    std = xtr.std((0, 2, 3)).view(1, 3, 1, 1)
    net = Net(a.width)
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    steps = a.epochs * ((len(xtr) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    yt = torch.from_numpy(ytr)
    for ep in range(a.epochs):
        net.train()
        perm = torch.randperm(len(xtr), generator=g)
        tot = 0.0
        for i in range(0, len(xtr), 128):
            idx = perm[i:i + 128]
            xb = (augment(xtr[idx].clone(), g) - mean) / std
            out = net(xb)
            loss = F.cross_entropy(out[:, :6], yt[idx, 0]) + F.cross_entropy(out[:, 6:], yt[idx, 1])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss) * len(idx)
        line = "epoch %d: loss %.4f" % (ep + 1, tot / len(xtr))
        if hold:
            f = evaluate(net, x[test_ok], y[test_ok], mean, std)
            line += "; held-out designs %s: piece error %.4f (shape %.4f, colour %.4f)" % (
                hold, f["piece_error"], f["shape_error"], f["color_error"])
        print(line, flush=True)

    figures = {}
    if hold:
        figures = {"held_out_designs": hold, "min_px_per_mm": a.min_ppm,
                   "max_blur_mm": a.max_blur,
                   **evaluate(net, x[test_ok], y[test_ok], mean, std)}
    elif a.figures:
        figures = json.load(open(a.figures))
    net.eval()
    size = px.shape[1]
    torch.onnx.export(net, torch.zeros(1, 3, size, size), a.out, opset_version=11,
                      input_names=["patch"], output_names=["logits"],
                      dynamic_axes={"patch": {0: "n"}, "logits": {0: "n"}})
    data = open(a.out, "rb").read()
    digest = hashlib.sha256(data).hexdigest()
    # the embedding the heads read, relu(f1(x)): what an enrolled set's
    # prototypes are kept in (vision/pieceset.h); torch 1.13 names the
    # ONNX node after its place in forward()
    if FEATURE_NODE.encode() not in data:
        sys.exit("train_qwirkle: the exported graph has no node %s" % FEATURE_NODE)
    manifest = {
        "input": {"size": size, "channels": 3,
                  "mean": [round(float(v), 6) for v in mean.flatten()],
                  "std": [round(float(v), 6) for v in std.flatten()]},
        "heads": [{"name": "shape", "values": SHAPES}, {"name": "color", "values": COLORS}],
        "sha256": digest,
        "features": {"node": FEATURE_NODE, "size": 64},
        "trained_on": {"designs": sorted(set(int(v) for v in y[~test, 2])),
                       "patches": int(len(xtr)), "data": [m for m in meta],
                       "epochs": a.epochs, "seed": a.seed, "width": a.width,
                       "torch": torch.__version__},
        "figures": figures,
    }
    # the normalisation is in the manifest, in [0,1] units, as classify.h wants
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    if hold:
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
