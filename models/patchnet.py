"""models/patchnet.py: what the training scripts share (train_qwirkle.py,
train_cube2.py, train_cubed.py): reading models/*_patches output, the
small CNN, the augmentations, and the tensor layout classify.h feeds.

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


def load(dirs):
    xs, ys = [], []
    meta = []
    for d in dirs:
        m = json.load(open(os.path.join(d, "patches.json")))
        s = m["size"]
        raw = np.fromfile(os.path.join(d, "patches.bin"), dtype=np.uint8)
        raw = raw.reshape(-1, m["record_bytes"])
        nl = m.get("label_bytes", 8)
        xs.append(raw[:, nl:].reshape(-1, s, s, 3))
        ys.append(raw[:, :nl].astype(np.int64))
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
    heads' logits, concatenated (nout in all).  Width w = 8 is about 1.2
    M multiply-adds a patch: what OpenCV's dnn runs in the reader's 0.1 ms
    a piece on one core."""

    def __init__(self, nout, w=8):
        super().__init__()
        self.c1 = block(3, w)
        self.c2 = block(w, 2 * w)
        self.c3 = block(2 * w, 4 * w)
        self.c4 = block(4 * w, 8 * w)
        self.drop = nn.Dropout(0.2)
        self.f1 = nn.Linear(8 * w * 4 * 4, 64)
        self.f2 = nn.Linear(64, nout)

    def forward(self, x):
        x = F.max_pool2d(self.c1(x), 2)
        x = F.max_pool2d(self.c2(x), 2)
        x = F.max_pool2d(self.c3(x), 2)
        x = torch.flatten(self.c4(x), 1)
        return self.f2(self.drop(F.relu(self.f1(x))))


def photometric(x, g):
    """Changes a camera makes that the renderer's set may not span:
    exposure, white balance, contrast, noise, a softer focus."""
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
    return x.clamp(0, 1)


def augment(x, g):
    """photometric(), and the symmetries every symbol has (mirror images,
    quarter turns)."""
    n = x.shape[0]
    x = photometric(x, g)
    flip = torch.rand(n, generator=g) < 0.5
    x[flip] = torch.flip(x[flip], dims=[3])
    turn = torch.randint(0, 4, (1,), generator=g).item()
    x = torch.rot90(x, turn, dims=[2, 3])
    return x.clamp(0, 1)


def to_tensor(px):
    return torch.from_numpy(px).permute(0, 3, 1, 2).float() / 255.0


def fit(net, xtr, ytr, mean, std, epochs, g, loss_fn, report=None, aug=augment, relabel=None):
    """Trains net on xtr (N x 3 x S x S in [0, 1]) and labels ytr (numpy,
    N x 8 or more) for epochs, in batches of 128, Adam with a one-cycle
    schedule, each batch augmented by aug(x, g), or, when relabel is
    given, by relabel(x, y, g) -> (x, y), an augmentation that changes the
    labels with the patch (a mirror image's edges); loss_fn(logits,
    labels) gives a batch's loss.  After each epoch report(epoch) may add
    to the printed line."""
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    steps = epochs * ((len(xtr) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    yt = torch.from_numpy(ytr)
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(xtr), generator=g)
        tot = 0.0
        for i in range(0, len(xtr), 128):
            idx = perm[i:i + 128]
            if relabel:
                xb, yb = relabel(xtr[idx].clone(), yt[idx].clone(), g)
            else:
                xb, yb = aug(xtr[idx].clone(), g), yt[idx]
            loss = loss_fn(net((xb - mean) / std), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss) * len(idx)
        line = "epoch %d: loss %.4f" % (ep + 1, tot / len(xtr))
        if report:
            line += report(ep)
        print(line, flush=True)


def export(net, size, out, mean, std, heads, trained_on, figures, who):
    """Writes net to out (ONNX, opset 11, any batch size) and its manifest
    beside it (vision/classify.h): the input's normalisation in [0, 1]
    units, the heads [(name, values)], the .onnx file's sha256, the
    features node, what it was trained on and its figures.  who names the
    script in errors."""
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, size, size), out, opset_version=11,
                      input_names=["patch"], output_names=["logits"],
                      dynamic_axes={"patch": {0: "n"}, "logits": {0: "n"}})
    data = open(out, "rb").read()
    # the embedding the heads read, relu(f1(x)): what an enrolled set's
    # prototypes are kept in (vision/pieceset.h); torch 1.13 names the
    # ONNX node after its place in forward()
    if FEATURE_NODE.encode() not in data:
        sys.exit("%s: the exported graph has no node %s" % (who, FEATURE_NODE))
    manifest = {
        "input": {"size": size, "channels": 3,
                  "mean": [round(float(v), 6) for v in mean.flatten()],
                  "std": [round(float(v), 6) for v in std.flatten()]},
        "heads": [{"name": n, "values": v} for n, v in heads],
        "sha256": hashlib.sha256(data).hexdigest(),
        "features": {"node": FEATURE_NODE, "size": 64},
        "trained_on": trained_on,
        "figures": figures,
    }
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


def prepare(data, hold, design_col):
    """The patches of the directories in data (comma-separated), split by
    the design label (column design_col) into training and held-out:
    hold is "none" or designs "3,10,17".  Returns (px, y, meta, hold,
    test, x, xtr, ytr, mean, std): the raw patches and labels, the held
    designs and their mask, the patches as a tensor, the training ones,
    and the per-channel normalisation measured on those."""
    px, y, meta = load(data.split(","))
    hold = [] if hold == "none" else [int(v) for v in hold.split(",")]
    test = np.isin(y[:, design_col], hold)
    x = to_tensor(px)
    xtr, ytr = x[~test], y[~test]
    mean = xtr.mean((0, 2, 3)).view(1, 3, 1, 1)
    std = xtr.std((0, 2, 3)).view(1, 3, 1, 1)
    return px, y, meta, hold, test, x, xtr, ytr, mean, std


def arguments(epochs):
    """The command line every training script takes (its own options are
    added to the parser it returns): --data, --out, --hold, --epochs
    (default epochs), --seed, --width, --figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hold", default="none")
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--width", type=int, default=8, help="channels of the first block")
    ap.add_argument("--figures", default=None, help="held-out figures (JSON) to carry")
    return ap
