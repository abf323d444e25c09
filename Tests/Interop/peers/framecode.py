"""Frame-index watermark: paints a 16-bit frame index (plus a CRC-8) as big black/white
blocks into a yuv420p frame, and reads it back from a decoded frame.

The blocks are 1/20 of the frame wide and high, sit on the 16-pixel macroblock grid at
640x480, and are read by averaging the luma of each block's centre: that survives H.264
at any sane bitrate and any rescaling (positions are fractions of the frame size).
No numpy: planes are handled as bytes.
"""

from __future__ import annotations

INDEX_BITS = 16
CRC_BITS = 8
COLUMNS = 12  # 24 bits in 2 rows of 12 blocks
ROWS = (INDEX_BITS + CRC_BITS) // COLUMNS
BLOCK_FRAC = 1 / 20  # block side, as a fraction of width (x) and of height (y)
ORIGIN = (0.2, 0.1)  # top-left of the block grid, as fractions of width and height
BLACK, WHITE, BACKGROUND = 16, 235, 96


def crc8(value: int) -> int:
    """CRC-8 (polynomial 0x07) over the two bytes of a 16-bit value."""
    crc = 0
    for byte in ((value >> 8) & 0xFF, value & 0xFF):
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def bits_for(index: int) -> list[int]:
    index &= 0xFFFF
    word = (index << CRC_BITS) | crc8(index)
    total = INDEX_BITS + CRC_BITS
    return [(word >> (total - 1 - i)) & 1 for i in range(total)]


def _block_rect(i: int, width: int, height: int) -> tuple[int, int, int, int]:
    row, col = divmod(i, COLUMNS)
    bw, bh = int(width * BLOCK_FRAC), int(height * BLOCK_FRAC)
    x0 = int(width * ORIGIN[0]) + col * bw
    y0 = int(height * ORIGIN[1]) + row * bh
    return x0, y0, bw, bh


def paint_luma(index: int, width: int, height: int) -> bytes:
    """Returns a width*height luma plane: grey background, a moving white bar (so the
    picture visibly moves) and the index blocks."""
    base = bytearray([BACKGROUND]) * width
    bar = (index * 8) % max(1, width - 16)
    base[bar:bar + 16] = bytes([WHITE]) * 16
    plane = bytearray(base) * height
    bits = bits_for(index)
    for row in range(ROWS):
        line = bytearray(base)
        x0, y0, bw, bh = _block_rect(row * COLUMNS, width, height)
        for col in range(COLUMNS):
            bit = bits[row * COLUMNS + col]
            xs = x0 + col * bw
            line[xs:xs + bw] = bytes([WHITE if bit else BLACK]) * bw
        for y in range(y0, y0 + bh):
            plane[y * width:(y + 1) * width] = line
    return bytes(plane)


def make_frame(index: int, width: int, height: int):
    """An av.VideoFrame (yuv420p) carrying `index`."""
    import av

    frame = av.VideoFrame(width, height, "yuv420p")
    luma = paint_luma(index, width, height)
    y_plane = frame.planes[0]
    if y_plane.line_size == width:
        y_plane.update(luma)
    else:  # padded rows
        pad = bytes(y_plane.line_size - width)
        y_plane.update(b"".join(luma[r * width:(r + 1) * width] + pad for r in range(height)))
    for plane in frame.planes[1:]:
        plane.update(bytes([128]) * plane.buffer_size)
    return frame


def read_index(frame) -> int | None:
    """Reads the index painted by make_frame from a decoded av.VideoFrame, or None when
    the blocks are not there or fail the CRC."""
    if frame.format.name not in ("yuv420p", "yuvj420p", "nv12", "gray"):
        frame = frame.reformat(format="yuv420p")
    plane = frame.planes[0]
    data = memoryview(plane)
    stride = plane.line_size
    width, height = frame.width, frame.height
    bits = []
    for i in range(INDEX_BITS + CRC_BITS):
        x0, y0, bw, bh = _block_rect(i, width, height)
        total = count = 0
        for sy in range(4):  # 4x4 samples over the central half of the block
            y = y0 + bh // 4 + sy * bh // 8
            row = y * stride
            for sx in range(4):
                total += data[row + x0 + bw // 4 + sx * bw // 8]
                count += 1
        bits.append(1 if total / count > (BLACK + WHITE) / 2 else 0)
    word = 0
    for b in bits:
        word = (word << 1) | b
    index, crc = word >> CRC_BITS, word & 0xFF
    return index if crc8(index) == crc else None
