#!/usr/bin/python3
"""models/train_cubed.py: trains the CUBED cell classifier (what a
candidate cell of the lattice shows: the mat, a tile or something that
covers it; a tile's parity and the colour of each of its six edges) on
patches from models/cubed_patches, and exports it for vision/cubed.h.

  models/train_cubed.py --data DIR[,DIR...] --out models/cubed.onnx
      [--hold 3,10,17] [--epochs N] [--seed S]

With --hold, the designs named are left out of training and the figures
written into the manifest are measured on them alone (designs the network
never saw); the shipped model is then trained again on every design
(--hold none) and carries the held-out figures of the run before it
(--figures FILE).  Deterministic for one torch build.

Augmentation: the camera's changes (patchnet.photometric); each
rhombus of a tile lit up to SHADE lighter or darker than the others (a
set shaded like an isometric cube, a light from one side: a pale orange
face is no yellow one); and the lattice's mirror images with their
labels: a patch mirrored left to right
has edge e where edge 5 - e was, the same parity; top to bottom, edge
2 - e (mod 6) and the other parity.  Quarter turns are no symmetry of a
hexagon; the sixths of a turn are in the patches (cubed_patches).

Needs Debian's python3-torch (1.13) and python3-numpy; running and
testing tablecam never do.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchnet import Net, arguments, export, fit, photometric, prepare  # noqa: E402

CELLS = ["empty", "tile", "covered"]
PARITIES = ["0", "1"]
# rules.h's colours, cubed's two last
COLORS = ["red", "orange", "yellow", "green", "blue", "purple", "black", "white"]
NONE = 255
DESIGN = 8  # label columns (cubed_patches.c): 0 cell, 1 parity, 2-7 edges, 8 design, ...
NC = len(CELLS)
NK = len(COLORS)
HFLIP = torch.tensor([5, 4, 3, 2, 1, 0])
VFLIP = torch.tensor([2, 1, 0, 5, 4, 3])
SHADE = 0.2
_masks = {}


def rhombi(size):
    """masks[p, j] (size x size): the pixels of rhombus j of a tile of
    parity p in a patch (its centre the tile's, VIS_CB_PATCH_MM 48 across:
    the tile's corners at 23 mm): the directions within 60 degrees of
    120 j + 60 p - 90 (the patch's x right, y down; edge e faces 60 (e - 1))."""
    if size not in _masks:
        c = (size - 1) / 2
        v, u = torch.meshgrid(torch.arange(size) - c, torch.arange(size) - c, indexing="ij")
        ang = torch.rad2deg(torch.atan2(v.float(), u.float()))
        inside = torch.hypot(u.float(), v.float()) < size * 23.0 / 48
        m = torch.zeros(2, 3, size, size)
        for p in (0, 1):
            for j in range(3):
                d = (ang - (120 * j + 60 * p - 90) + 540) % 360 - 180
                m[p, j] = ((d.abs() < 60) & inside).float()
        _masks[size] = m
    return _masks[size]


def shade(x, y, g):
    tile = y[:, 0] == 1
    if not tile.any():
        return x
    m = rhombi(x.shape[2])[y[tile, 1]]  # n x 3 x S x S
    gain = 1 + SHADE * (torch.rand(int(tile.sum()), 3, 1, 1, generator=g) * 2 - 1)
    f = 1 + ((gain - 1) * m).sum(1, keepdim=True)
    x[tile] = x[tile] * f
    return x


def relabel(x, y, g):
    x = shade(photometric(x, g), y, g).clamp(0, 1)
    n = x.shape[0]
    for perm, dim, swap in ((HFLIP, 3, False), (VFLIP, 2, True)):
        m = torch.rand(n, generator=g) < 0.5
        if not m.any():
            continue
        x[m] = torch.flip(x[m], dims=[dim])
        ym = y[m]
        ym[:, 2:8] = ym[:, 2:8][:, perm]
        if swap:
            p = ym[:, 1]
            ym[:, 1] = torch.where(p == NONE, p, 1 - p)
        y[m] = ym
    return x, y


def split(out):
    return out[:, :NC], out[:, NC:NC + 2], out[:, NC + 2:].reshape(-1, 6, NK)


def losses(out, y):
    lc, lp, le = split(out)
    loss = F.cross_entropy(lc, y[:, 0])
    tile = y[:, 0] == 1
    if tile.any():
        loss = loss + F.cross_entropy(lp[tile], y[tile, 1])
        loss = loss + F.cross_entropy(le[tile].reshape(-1, NK), y[tile, 2:8].reshape(-1))
    return loss


def read(out):
    """The reading vision/cubed.c makes: the cell's value; a tile's parity
    (its head times its edges' pairs being alike) and faces."""
    lc, lp, le = split(out)
    pc, pp, pe = F.softmax(lc, 1), F.softmax(lp, 1), F.softmax(le, 2)
    score, faces = [], []
    for p in (0, 1):
        s = pp[:, p]
        fp = []
        for j in range(3):
            a, b = (2 * j - 1 + p) % 6, (2 * j + p) % 6
            joint = pe[:, a] * pe[:, b]
            s = s * joint.sum(1)
            fp.append(joint.argmax(1))
        score.append(s)
        faces.append(torch.stack(fp, 1))
    parity = (score[1] > score[0]).long()
    face = torch.where(parity[:, None] == 1, faces[1], faces[0])
    return pc.argmax(1), parity, face


def evaluate(net, x, y, mean, std):
    net.eval()
    with torch.no_grad():
        out = torch.cat([net((x[i:i + 2048] - mean) / std) for i in range(0, len(x), 2048)])
    cell, parity, face = read(out)
    yy = torch.from_numpy(y)
    yc, yp = yy[:, 0], yy[:, 1]
    # the truth's faces in parity order: face j over edge (2j + p) mod 6
    idx = (2 * torch.arange(3)[None, :] + yp.clamp(0, 1)[:, None]) % 6
    yf = torch.gather(yy[:, 2:8], 1, idx)
    tile = yc == 1
    faces_right = (face == yf).all(1)
    right = (cell == yc) & (~tile | ((parity == yp) & faces_right))
    # a triple's parity shows only in the lines between its rhombi
    triple = tile & (yf[:, 0] == yf[:, 1]) & (yf[:, 1] == yf[:, 2])
    seen = yc != 2

    def part(mask):
        m = int((mask & seen).sum())
        return {"cells": m,
                "cell_error": float(1 - right[mask & seen].float().mean()) if m else None}
    fig = {
        "cells": int(seen.sum()),
        "cell_error": float(1 - right[seen].float().mean()),
        "tiles": int(tile.sum()),
        "tile_error": float(1 - right[tile].float().mean()) if tile.any() else None,
        "tile_faces_error": float(1 - (faces_right & (cell == 1))[tile].float().mean())
        if tile.any() else None,
        "parity_error": float((parity[tile] != yp[tile]).float().mean()) if tile.any() else None,
        "parity_error_not_triples": float((parity[tile & ~triple] != yp[tile & ~triple])
                                          .float().mean()) if (tile & ~triple).any() else None,
        "empty_error": float((cell[yc == 0] != 0).float().mean()) if (yc == 0).any() else None,
        "tile_missed": float((cell[tile] != 1).float().mean()) if tile.any() else None,
        "covered": int((yc == 2).sum()),
        "covered_found": float((cell[yc == 2] == 2).float().mean()) if (yc == 2).any() else None,
        "edge_confusion": [[int(((yf == a) & (face == b) & tile[:, None]).sum())
                            for b in range(NK)] for a in range(NK)],
    }
    fig["by_design"] = {str(d): part(yy[:, DESIGN] == d)
                        for d in sorted(set(y[:, DESIGN].tolist()))}
    fig["by_px_per_mm"] = {"%.1f-%.1f" % (lo, hi): part((yy[:, 9] >= lo * 40) &
                                                         (yy[:, 9] < hi * 40))
                           for lo, hi in ((0.0, 0.6), (0.6, 1.0), (1.0, 1.3), (1.3, 9.9))}
    fig["by_setup"] = {"good": part(yy[:, 11] == 1), "any": part(yy[:, 11] == 0)}
    fig["stable"] = part(yy[:, 12] == 1)
    return fig


def main():
    ap = arguments(8)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(a.seed)

    px, y, meta, hold, test, x, xtr, ytr, mean, std = prepare(a.data, a.hold, DESIGN)
    net = Net(NC + 2 + 6 * NK, a.width)

    def report(ep):
        f = evaluate(net, x[test], y[test], mean, std)
        return "; held-out designs %s: cell error %.4f (tiles %.4f, faces %.4f, parity %.4f)" % (
            hold, f["cell_error"], f["tile_error"], f["tile_faces_error"], f["parity_error"])

    fit(net, xtr, ytr, mean, std, a.epochs, g, losses, report if hold else None,
        relabel=relabel)

    figures = {}
    if hold:
        figures = {"held_out_designs": hold, **evaluate(net, x[test], y[test], mean, std)}
    elif a.figures:
        figures = json.load(open(a.figures))
    trained_on = {"designs": sorted(set(int(v) for v in y[~test, DESIGN])),
                  "patches": int(len(xtr)), "data": [m for m in meta],
                  "epochs": a.epochs, "seed": a.seed, "width": a.width,
                  "torch": torch.__version__}
    heads = [("cell", CELLS), ("parity", PARITIES)] + [("edge%d" % k, COLORS) for k in range(6)]
    export(net, px.shape[1], a.out, mean, std, heads, trained_on, figures, "train_cubed")
    if hold:
        print(json.dumps({k: v for k, v in figures.items() if k != "edge_confusion"}, indent=1))


if __name__ == "__main__":
    main()
