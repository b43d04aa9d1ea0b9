"""Iteration order of a libstdc++ ``std::unordered_map<std::string, T>``.

Input: keys in insertion order. Output: the same keys in the order llama.cpp's release
build iterates them. llama.cpp keeps PEG rule names in such a map, and both the
serialized arena (the ``rules`` object) and rule-name clashes in the grammar follow that
order, so byte-identical output needs it.

The model: keys hash with ``std::_Hash_bytes`` (seed 0xc70f6907); the table starts with
one bucket and grows by the prime rehash policy (max load factor 1, growth factor 2); a
key goes to the front of its bucket, or to the front of the whole list when its bucket
is empty; a rehash walks the list and re-links nodes the same way.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

_MASK = (1 << 64) - 1
_MUL = (0xC6A4A793 << 32) + 0x5BD1E995
_SEED = 0xC70F6907

# libstdc++'s __prime_list, as far as any arena could need it.
_PRIMES = (
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103,
    109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359,
    383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381,
    1493, 1613, 1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087,
    5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411,
    17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201,
    53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733, 107897, 116731, 126271, 136607,
    147793, 159871, 172933, 187091, 202409, 218971, 236897, 256279, 277261, 299951, 324503, 351061,
    379787, 410857, 444487, 480881, 520241, 562841, 608903, 658753, 712697, 771049, 834181, 902483,
    976369,
)
_FAST_BKT = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def hash_bytes(data: bytes, seed: int = _SEED) -> int:
    """libstdc++'s 64-bit ``_Hash_bytes`` (a MurmurHash2 variant)."""
    n = len(data)
    aligned = n & ~7
    h = (seed ^ (n * _MUL)) & _MASK
    for i in range(0, aligned, 8):
        k = int.from_bytes(data[i:i + 8], "little")
        k = (_shift_mix((k * _MUL) & _MASK) * _MUL) & _MASK
        h = ((h ^ k) * _MUL) & _MASK
    if n & 7:
        k = int.from_bytes(data[aligned:], "little")
        h = ((h ^ k) * _MUL) & _MASK
    h = (_shift_mix(h) * _MUL) & _MASK
    return _shift_mix(h)


class _RehashPolicy:
    def __init__(self) -> None:
        self.next_resize = 0

    def next_bkt(self, n: int) -> int:
        if n < len(_FAST_BKT):
            if n == 0:
                return 1
            self.next_resize = _FAST_BKT[n]
            return _FAST_BKT[n]
        idx = bisect_left(_PRIMES, n, 6)
        if idx >= len(_PRIMES):
            raise ValueError("unordered_map model: table larger than the modelled prime list")
        self.next_resize = _PRIMES[idx]
        return _PRIMES[idx]

    def need_rehash(self, n_bkt: int, n_elt: int, n_ins: int) -> int | None:
        if n_elt + n_ins > self.next_resize:
            min_bkts = max(n_elt + n_ins, 0 if self.next_resize else 11)
            if min_bkts >= n_bkt:
                return self.next_bkt(max(min_bkts + 1, n_bkt * 2))
            self.next_resize = n_bkt
        return None


def unordered_map_order(keys: Iterable[str]) -> list[str]:
    """The iteration order of an unordered_map<string, T> after inserting ``keys``."""
    order: list[str] = []  # the singly linked node list
    hashes: dict[str, int] = {}
    n_bkt = 1
    policy = _RehashPolicy()

    def bucket(key: str) -> int:
        return hashes[key] % n_bkt

    def insert(nodes: list[str], key: str, bucket_of) -> None:
        b = bucket_of(key)
        for i, other in enumerate(nodes):
            if bucket_of(other) == b:
                nodes.insert(i, key)  # front of its bucket's run
                return
        nodes.insert(0, key)  # empty bucket: front of the whole list

    for key in keys:
        if key in hashes:
            continue
        hashes[key] = hash_bytes(key.encode("utf-8"))
        grow = policy.need_rehash(n_bkt, len(order), 1)
        if grow is not None:
            n_bkt = grow
            rehashed: list[str] = []
            for node in order:
                insert(rehashed, node, bucket)
            order = rehashed
        insert(order, key, bucket)
    return order
