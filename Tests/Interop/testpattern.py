"""Reads the wall-clock barcode that the broadcaster's test pattern draws at the top of every
frame (Swift: `TestPatternBarcode` in Sources/OnAirTestPattern), from a decoded frame's luma.

Payload: the Unix time in milliseconds as 48 bits, most significant first, then the
CRC-16/CCITT-FALSE of those 6 big-endian bytes (poly 0x1021, init 0xFFFF, no reflection,
no final XOR). Layout: 2 rows x 32 columns of cells at the top; bit i is the cell in column
i % 32, row i // 32; cell (c, r) covers x in [c*W//32, (c+1)*W//32) and y in
[r*H//24, (r+1)*H//24). A 1 is luma 235, a 0 luma 16.

Reading, exactly as the Swift reader does: average each cell's luma over its central half
([x0 + w//4, x1 - w//4), likewise in y), bit = average >= 128, and accept the time only when
the CRC matches. Cells are fractions of the frame, so any scaled rendition reads too.
"""

from __future__ import annotations

import numpy as np

COLUMNS = 32
ROWS = 2
ROW_DIVISOR = 24
BIT_COUNT = 64
TIMESTAMP_MASK = (1 << 48) - 1
ONE_LUMA, ZERO_LUMA, THRESHOLD = 235, 16, 128


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE; crc16(b"123456789") == 0x29B1."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def payload(milliseconds: int) -> int:
    """The 64 bits of the band: (milliseconds mod 2**48) << 16 | CRC."""
    timestamp = milliseconds & TIMESTAMP_MASK
    return timestamp << 16 | crc16(timestamp.to_bytes(6, "big"))


def timestamp_from_payload(bits: int) -> int | None:
    timestamp = bits >> 16
    return timestamp if crc16(timestamp.to_bytes(6, "big")) == bits & 0xFFFF else None


def inner_half(index: int, count: int, length: int) -> tuple[int, int]:
    """The central half of cell `index` of `count` along `length` pixels."""
    start, end = index * length // count, (index + 1) * length // count
    margin = (end - start) // 4
    return start + margin, end - margin


def read_payload(luma: np.ndarray) -> int | None:
    """The raw 64 bits (unchecked), or None for a frame under 32x24. `luma` is a 2-D uint8
    array of exactly height x width (crop any row padding first)."""
    if luma.ndim != 2:
        raise ValueError(f"expected a 2-D luma plane, got shape {luma.shape}")
    height, width = luma.shape
    if width < COLUMNS or height < ROW_DIVISOR:
        return None
    bits = 0
    for row in range(ROWS):
        top, bottom = inner_half(row, ROW_DIVISOR, height)
        for column in range(COLUMNS):
            left, right = inner_half(column, COLUMNS, width)
            cell = luma[top:bottom, left:right]
            # Integers, as in Swift: sum >= 128 * pixels (no float rounding differences).
            bits = bits << 1 | int(int(cell.sum(dtype=np.int64)) >= THRESHOLD * cell.size)
    return bits


def read_barcode(luma: np.ndarray) -> int | None:
    """The Unix time in milliseconds carried by the frame, or None (no barcode, damaged
    band, CRC mismatch). E.g. `read_barcode(frame.to_ndarray(format="gray"))` with PyAV."""
    bits = read_payload(luma)
    return None if bits is None else timestamp_from_payload(bits)
