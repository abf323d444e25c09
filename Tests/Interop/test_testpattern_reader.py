"""The Python reader of the test pattern's wall-clock barcode (testpattern.py) against the
layout written out independently here, the CRC check value and the vectors the Swift tests
use. No relay is started: these tests use no fixtures. The real Swift -> H.264 -> Python
check belongs to the broadcast interop tests."""

from __future__ import annotations

import binascii

import numpy as np
import pytest

import testpattern

SIZES = [(160, 120), (322, 182), (640, 360), (1280, 720), (1920, 1080)]
TIMES = [0, 1, 1_700_000_000_123, 0x0123_4567_89AB, 0xAAAA_AAAA_AAAA, (1 << 48) - 1]


def paint(milliseconds: int, width: int, height: int, background: int = 90) -> np.ndarray:
    """A luma plane with the band drawn per the layout (not using the reader's helpers):
    64 bits, MSB first, cell (i % 32, i // 32) = [c*W//32, (c+1)*W//32) x [r*H//24, (r+1)*H//24)."""
    timestamp = milliseconds & ((1 << 48) - 1)
    word = timestamp << 16 | binascii.crc_hqx(timestamp.to_bytes(6, "big"), 0xFFFF)
    luma = np.full((height, width), background, dtype=np.uint8)
    for i in range(64):
        column, row = i % 32, i // 32
        bit = (word >> (63 - i)) & 1
        luma[row * height // 24:(row + 1) * height // 24, column * width // 32:(column + 1) * width // 32] = 235 if bit else 16
    return luma


def add_noise(luma: np.ndarray, amplitude: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noise = rng.integers(-amplitude, amplitude + 1, size=luma.shape)
    return np.clip(luma.astype(np.int16) + noise, 0, 255).astype(np.uint8)


def downscale2x(luma: np.ndarray) -> np.ndarray:
    h, w = luma.shape
    blocks = luma[:h // 2 * 2, :w // 2 * 2].astype(np.uint16).reshape(h // 2, 2, w // 2, 2)
    return ((blocks.sum(axis=(1, 3)) + 2) // 4).astype(np.uint8)


def test_crc_check_value_and_shared_vectors():
    assert testpattern.crc16(b"123456789") == 0x29B1
    assert testpattern.crc16(b"") == 0xFFFF
    # The same vectors as TestPatternBarcodeTests.payloadVectors (Swift).
    assert testpattern.payload(1_700_000_000_123) == 0x018B_CFE5_687B_E46B
    assert testpattern.payload(0) == 0x0E10
    assert testpattern.payload(0xFFFF_FFFF_FFFF) == 0xFFFF_FFFF_FFFF_99CF
    assert testpattern.payload(0x0123_4567_89AB) == 0x0123_4567_89AB_C475
    for data in (b"\x00" * 6, b"\xff" * 6, bytes(range(6)), b"OnAir!"):
        assert testpattern.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


@pytest.mark.parametrize("width,height", SIZES)
def test_round_trip_clean_noisy_and_downscaled(width, height):
    for n, milliseconds in enumerate(TIMES):
        luma = paint(milliseconds, width, height)
        assert testpattern.read_barcode(luma) == milliseconds & ((1 << 48) - 1)
        noisy = add_noise(luma, 40, seed=n + width)
        assert testpattern.read_barcode(noisy) == milliseconds
        assert testpattern.read_barcode(downscale2x(luma)) == milliseconds
        assert testpattern.read_barcode(add_noise(downscale2x(luma), 40, seed=n)) == milliseconds


def test_padded_rows_read_once_cropped():
    luma = paint(1_700_000_000_123, 640, 360)
    padded = np.zeros((360, 704), dtype=np.uint8)
    padded[:, :640] = luma
    assert testpattern.read_barcode(padded[:, :640]) == 1_700_000_000_123  # a view, not contiguous


@pytest.mark.parametrize("width,height", [(160, 120), (1280, 720)])
def test_every_flipped_cell_is_rejected(width, height):
    milliseconds = 1_700_000_000_123
    clean = paint(milliseconds, width, height)
    for i in range(64):
        column, row = i % 32, i // 32
        luma = clean.copy()
        cell = luma[row * height // 24:(row + 1) * height // 24, column * width // 32:(column + 1) * width // 32]
        cell[...] = 251 - cell
        assert testpattern.read_barcode(luma) is None, f"bit {i}"
        assert testpattern.read_payload(luma) == testpattern.payload(milliseconds) ^ (1 << (63 - i))


def test_no_barcode():
    for value in (0, 16, 128, 235, 255):
        assert testpattern.read_barcode(np.full((360, 640), value, dtype=np.uint8)) is None
    rng = np.random.default_rng(5)
    for _ in range(50):
        assert testpattern.read_barcode(rng.integers(0, 256, size=(180, 320), dtype=np.uint8)) is None
    assert testpattern.read_barcode(np.zeros((24, 31), dtype=np.uint8)) is None
    assert testpattern.read_barcode(np.zeros((23, 32), dtype=np.uint8)) is None
    with pytest.raises(ValueError):
        testpattern.read_barcode(np.zeros((120, 160, 3), dtype=np.uint8))


def test_inner_half_matches_swift():
    # The same cases as TestPatternBarcodeTests.innerHalf (Swift).
    assert testpattern.inner_half(0, 32, 1920) == (15, 45)
    assert testpattern.inner_half(1, 24, 1080) == (56, 79)
    assert testpattern.inner_half(31, 32, 160) == (156, 159)
    assert testpattern.inner_half(0, 24, 24) == (0, 1)
