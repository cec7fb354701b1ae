"""Reads a safetensors file by hand (the `safetensors` package is not a Debian package) for the reference
scripts: {name: float32 torch tensor} from F32, F16, BF16 (exact widening) and BOOL entries; the metadata
is dropped. Other dtypes raise ValueError naming the tensor.
"""

import json
import math
import struct
import sys

import torch

assert sys.byteorder == "little", "safetensors is little-endian"


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    buf = data[8 + n:]
    out = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        raw = bytearray(buf[b:end])
        dtype = e["dtype"]
        if dtype == "F32":
            t = torch.frombuffer(raw, dtype=torch.float32)
        elif dtype == "F16":
            t = torch.frombuffer(raw, dtype=torch.float16).float()
        elif dtype == "BF16":
            t = torch.frombuffer(raw, dtype=torch.bfloat16).float()
        elif dtype == "BOOL":
            t = torch.frombuffer(raw, dtype=torch.uint8).bool()
        else:
            raise ValueError(f"{path}: tensor {name} has dtype {dtype}, not F32/F16/BF16/BOOL")
        assert t.numel() == math.prod(e["shape"]), f"{path}: {name} size does not match its shape"
        out[name] = t.reshape(e["shape"]).clone()
    return out
