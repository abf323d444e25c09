#!/usr/bin/env python3
"""Copies seeds that already exist as test fixtures into tools/fuzz/corpus:

- sdp/: the offers and answers captured from Chromium and aiortc
  (Tests/OnAirSDPTests/Fixtures/*.swift), with CRLF line ends as peers send them, and the
  RFC 9725-style trickle and ICE-restart fragments of SDPFragmentTests.swift;
- stun/: the RFC 5769 §2 vectors and the aioice messages of Tests/OnAirSTUNTests.

Usage: python3 tools/fuzz/seeds/copy-fixtures.py   (from the repository root)
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tools/fuzz/corpus"

# `static let name = """ ... """` (indented Swift multi-line string literals).
LITERAL = re.compile(r'static let (\w+) = """\n(.*?)\n( *)"""', re.S)


def literals(path):
    for name, body, indent in LITERAL.findall(path.read_text()):
        lines = [line[len(indent):] for line in body.split("\n")]
        yield name, lines


def kebab(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def write(target, name, data):
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data)


def sdp():
    fixtures = ROOT / "Tests/OnAirSDPTests/Fixtures"
    for path in sorted(fixtures.glob("*.swift")):
        peer = kebab(path.stem.split("+")[0]).replace("-offers", "").replace("answers-to-our-offer", "answer")
        for name, lines in literals(path):
            if "answer" in peer and name == "offer":
                continue  # our own offer; the harness builds it
            write("sdp", f"{peer}-{kebab(name)}", ("\r\n".join(lines) + "\r\n").encode())
    for name, lines in literals(ROOT / "Tests/OnAirSDPTests/SDPFragmentTests.swift"):
        write("sdp", f"sdpfrag-{kebab(name)}", ("\r\n".join(lines) + "\r\n").encode())
    # The ICE restart fragment is a local literal in the test; it is short enough to restate.
    restart = ["a=ice-options:trickle ice2", "a=group:BUNDLE 0 1", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0",
               "a=ice-ufrag:New1", "a=ice-pwd:newpasswordnewpassword1", "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:1"]
    write("sdp", "sdpfrag-ice-restart", ("\r\n".join(restart) + "\r\n").encode())


# `static let name = Hex.decode("""  hex  """)!`
HEX = re.compile(r'static let (\w+) = Hex\.decode\("""\n(.*?)"""\)!', re.S)


def stun():
    for path, prefix in [(ROOT / "Tests/OnAirSTUNTests/RFC5769Vectors.swift", "rfc5769"),
                         (ROOT / "Tests/OnAirSTUNTests/AioiceVectorTests.swift", "aioice")]:
        for name, body in HEX.findall(path.read_text()):
            digits = re.sub(r"[^0-9a-fA-F]", "", body.replace("\\\n", ""))
            write("stun", f"{prefix}-{kebab(name)}", bytes.fromhex(digits))


sdp()
stun()
print(f"fixtures copied into {CORPUS}")
