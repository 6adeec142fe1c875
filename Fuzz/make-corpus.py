#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into Fuzz/Corpus/<target>/ (checked in; rerun to refresh them).

Seeds come from real and simulated objects: the real Apple attestation in /work/shared/vectors (copied into
Tests/AppAttestTests/Fixtures), attestations, assertions and receipts made by attestd-sim with a fresh simulated CA
(whose roots travel inside the seeds, see Fuzz/Attestation/main.swift), request messages built from Protos/, and
HTTP/2 and HTTP/1.1 client bytes built here frame by frame.

usage: Fuzz/make-corpus.py [path/to/attestd-sim]   (default .build/debug/attestd-sim; `swift build --product
attestd-sim` first)
"""
import base64, hashlib, json, os, re, shutil, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")
SIM = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "attestd-sim")
VECTOR = os.path.join(ROOT, "Tests", "AppAttestTests", "Fixtures", "apple-guide-2026-attestation.json")
SIM_APP_ID = "0123456789.com.example.myapp"


def write(target, name, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def reset(targets):
    for target in targets:
        shutil.rmtree(os.path.join(CORPUS, target), ignore_errors=True)


# --- CBOR, just enough to take App Attest objects apart -------------------------------------------------------------

def cbor_item(data, i):
    major, info = data[i] >> 5, data[i] & 31
    i += 1
    if info < 24:
        value = info
    else:
        size = {24: 1, 25: 2, 26: 4, 27: 8}[info]
        value = int.from_bytes(data[i:i + size], "big")
        i += size
    if major in (0, 1, 7):
        return value, i
    if major in (2, 3):
        raw = data[i:i + value]
        return (raw if major == 2 else raw.decode()), i + value
    if major == 4:
        items = []
        for _ in range(value):
            item, i = cbor_item(data, i)
            items.append(item)
        return items, i
    if major == 5:
        entries = {}
        for _ in range(value):
            key, i = cbor_item(data, i)
            entries[key], i = cbor_item(data, i)
        return entries, i
    raise ValueError("unsupported CBOR")


def cbor(data):
    return cbor_item(data, 0)[0]


def der(pem_path):
    text = open(pem_path).read()
    body = "".join(line for line in text.splitlines() if not line.startswith("-----"))
    return base64.b64decode(body)


def u16(n):
    return struct.pack(">H", n)


def i64(n):
    return struct.pack(">q", n)


def sim(*args):
    return json.loads(subprocess.check_output([SIM, *args]))


# --- App Attest objects -----------------------------------------------------------------------------------------------

def app_attest_seeds():
    reset(["cbor", "authdata", "attestation", "assertion", "receipt", "der-certificate"])
    vector = json.load(open(VECTOR))
    real = base64.b64decode(vector["attestation_b64"])
    real_key_id = base64.b64decode(vector["key_id_b64"])
    real_cdh = base64.b64decode(vector["client_data_hash_b64"])
    real_time = int(subprocess.check_output(["date", "-u", "-d", vector["verify_at"], "+%s"]))
    real_env = 0 if vector["environment"] == "development" else 1
    real_app = vector["app_id"].encode()

    write("attestation", "apple-real", u16(0) + u16(0) + real_key_id + bytes([len(real_cdh)]) + real_cdh + i64(real_time) + bytes([real_env])
          + bytes([len(real_app)]) + real_app + real)
    write("cbor", "apple-real-attestation", real)
    real_object = cbor(real)
    write("authdata", "apple-real-attestation", real_object["authData"])
    write("receipt", "apple-real", u16(0) + i64(real_time) + bytes(65) + bytes([len(real_app)]) + real_app
          + real_object["attStmt"]["receipt"])
    write("der-certificate", "apple-leaf", real_object["attStmt"]["x5c"][0])
    write("der-certificate", "apple-ca", real_object["attStmt"]["x5c"][1])

    directory = tempfile.mkdtemp(prefix="attestd-corpus-")
    try:
        sim("init", "--dir", directory)
        attest_root = der(os.path.join(directory, "app-attest-root.pem"))
        write("der-certificate", "sim-root", attest_root)
        receipt_root = der(os.path.join(directory, "receipt-root.pem"))
        now = int(subprocess.check_output(["date", "-u", "+%s"]))
        app = SIM_APP_ID.encode()
        variants = [
            ("dev-ios27", ["--environment", "development", "--validation-category", "1", "--bundle-version", "1.2.3"]),
            ("prod-ios27", ["--environment", "production", "--validation-category", "2"]),
            ("dev-old-os", ["--environment", "development"]),
        ]
        for name, options in variants:
            key_file = os.path.join(directory, name + ".key")
            challenge = ("challenge-" + name).encode()
            made = sim("attest", "--dir", directory, "--key-file", key_file, "--app-id", SIM_APP_ID,
                       "--challenge", base64.b64encode(challenge).decode(), *options)
            attestation = base64.b64decode(made["attestation"])
            key_id = base64.b64decode(made["keyId"])
            public_key = base64.b64decode(made["publicKey"])
            cdh = hashlib.sha256(challenge).digest()
            env = 0 if "development" in options else 1
            write("attestation", "sim-" + name, u16(len(attest_root)) + attest_root + u16(len(receipt_root))
                  + receipt_root + key_id + bytes([len(cdh)]) + cdh + i64(now) + bytes([env]) + bytes([len(app)]) + app + attestation)
            write("cbor", "sim-attestation-" + name, attestation)
            decoded = cbor(attestation)
            if name != "dev-old-os":
                write("der-certificate", "sim-leaf-" + name, decoded["attStmt"]["x5c"][0])
            write("authdata", "sim-attestation-" + name, decoded["authData"])
            receipt = decoded["attStmt"]["receipt"]
            write("receipt", "sim-" + name, u16(len(receipt_root)) + receipt_root + i64(now) + public_key
                  + bytes([len(app)]) + app + receipt)
            for counter in (1, 2, 1000):
                client_data = ("client-data-%s-%d" % (name, counter)).encode()
                asserted = sim("assert", "--dir", directory, "--key-file", key_file, "--app-id", SIM_APP_ID,
                               "--client-data", base64.b64encode(client_data).decode(), "--counter", str(counter))
                assertion = base64.b64decode(asserted["assertion"])
                write("assertion", "sim-%s-%d" % (name, counter), public_key + hashlib.sha256(client_data).digest()
                      + struct.pack(">I", counter - 1) + bytes([len(app)]) + app + assertion)
                if counter == 1:
                    write("cbor", "sim-assertion-" + name, assertion)
                    write("authdata", "sim-assertion-" + name, cbor(assertion)["authenticatorData"])
    finally:
        shutil.rmtree(directory)
    # Hand-made CBOR: every major type the decoder accepts, and some it must refuse.
    write("cbor", "kinds", bytes.fromhex("a8" "00" "01" "20" "38ff" "41" "ff" "61" "61" "62" "6869" "82f4f5" "63" "6b6579" "f6"
                                         "01" "a1" "01" "80" "02" "1b" "ffffffffffffffff"))
    write("cbor", "indefinite", bytes.fromhex("9f01ff"))
    write("cbor", "tag", bytes.fromhex("c11a514b67b0"))


# --- Protobuf and JSON requests ---------------------------------------------------------------------------------------

# AppCheckRPC.allCases order: the fuzz targets pick the RPC with their first byte.
RPC_REQUESTS = [
    "GetPublicJwkSetRequest", "ExchangeSafetyNetTokenRequest", "ExchangeDeviceCheckTokenRequest",
    "ExchangeRecaptchaV3TokenRequest", "ExchangeRecaptchaEnterpriseTokenRequest", "ExchangeCustomTokenRequest",
    "ExchangeDebugTokenRequest", "GenerateAppAttestChallengeRequest", "ExchangeAppAttestAttestationRequest",
    "ExchangeAppAttestAssertionRequest", "GeneratePlayIntegrityChallengeRequest", "ExchangePlayIntegrityTokenRequest",
    "VerifyAppCheckTokenRequest", "HealthCheckRequest", "QueryTwoBitsRequest", "UpdateTwoBitsRequest",
    "GetAttestedKeyRequest", "RevokeAttestedKeyRequest",
]


def proto_messages():
    messages = {}
    for directory, _, files in os.walk(os.path.join(ROOT, "Protos")):
        for file in files:
            if not file.endswith(".proto"):
                continue
            text = open(os.path.join(directory, file)).read()
            for name, body in re.findall(r"^message (\w+) \{(.*?)^\}", text, re.S | re.M):
                messages[name] = re.findall(r"^\s*(repeated )?([\w.]+) (\w+) = (\d+);", body, re.M)
    return messages


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def lower_camel(name):
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def sample(type_, name):
    """(protobuf wire bytes after the tag's wire type, JSON value, wire type) for one field."""
    if type_ == "string":
        text = "projects/demo/apps/1:123:ios:abc" if name == "app" else "projects/demo" if name == "project" else "jwks" if name == "name" else name + "-value"
        return varint(len(text)) + text.encode(), text, 2
    if type_ == "bytes":
        raw = bytes(range(32))
        return varint(len(raw)) + raw, base64.b64encode(raw).decode(), 2
    if type_ == "bool":
        return b"\x01", True, 0
    if type_ in ("int32", "int64", "uint32", "uint64"):
        return varint(300), "300" if type_.endswith("64") else 300, 0
    return None


def request_seeds():
    reset(["protobuf", "json"])
    messages = proto_messages()
    for index, name in enumerate(RPC_REQUESTS):
        proto = bytearray()
        document = {}
        for repeated, type_, field, number in messages[name]:
            made = sample(type_, field)
            if made is None:
                continue
            wire, value, wire_type = made
            proto += varint(int(number) << 3 | wire_type) + wire
            document[lower_camel(field)] = [value] if repeated else value
        write("protobuf", "%02d-%s" % (index, name), bytes([index]) + bytes(proto))
        write("protobuf", "%02d-%s-empty" % (index, name), bytes([index]))
        write("json", "%02d-%s" % (index, name), bytes([index]) + json.dumps(document).encode())
        snake = {re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key): value for key, value in document.items()}
        write("json", "%02d-%s-snake" % (index, name), bytes([index]) + json.dumps(snake, indent=1).encode())
    write("json", "nested", bytes([9]) + b'{"app": "x", "unknown": {"a": [1, 2.5e3, -0.1, null, true, "\\u00e9\\ud83d\\ude00"]}}')
    write("json", "urlsafe-bytes", bytes([16]) + b'{"keyId": "AAEC_-8", "app": "projects/p/apps/a"}')


# --- gRPC bodies and request text -------------------------------------------------------------------------------------

def grpc_seeds():
    reset(["grpc-deframe"])
    message = b"\x0a\x05hello\x12\x03abc"
    write("grpc-deframe", "framed", b"\x00" + struct.pack(">I", len(message)) + message)
    write("grpc-deframe", "empty-message", b"\x00\x00\x00\x00\x00")
    write("grpc-deframe", "compressed", b"\x01" + struct.pack(">I", len(message)) + message)
    write("grpc-deframe", "path", b"/google.firebase.appcheck.v1.TokenExchangeService/ExchangeAppAttestAssertion")
    write("grpc-deframe", "timeout", b"99999999H")
    write("grpc-deframe", "content-type", b"application/grpc+proto")
    write("grpc-deframe", "rest", b"/v1/projects/demo/apps/1:123:ios:abc:exchangeAppAttestAssertion?alt=json")
    write("grpc-deframe", "rest-project", b"/v1/projects/demo:verifyAppCheckToken")
    write("grpc-deframe", "resource", b"projects/demo/apps/1:123:ios:abc")


# --- HTTP/2 and HTTP/1.1 client bytes ---------------------------------------------------------------------------------

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def hpack(headers):
    # Literal header fields without indexing, new names, no Huffman: valid HPACK that any decoder must read.
    out = bytearray()
    for name, value in headers:
        out += b"\x00" + hpack_string(name) + hpack_string(value)
    return bytes(out)


def hpack_string(text):
    raw = text.encode()
    assert len(raw) < 127
    return bytes([len(raw)]) + raw


def request(stream, method, path, extra=(), end_stream=True):
    headers = [(":method", method), (":scheme", "http"), (":authority", "localhost"), (":path", path), *extra]
    return frame(1, 0x4 | (0x1 if end_stream else 0), stream, hpack(headers))


SETTINGS = frame(4, 0, 0, struct.pack(">HI", 3, 100) + struct.pack(">HI", 4, 65535))
SETTINGS_ACK = frame(4, 1, 0, b"")
GRPC_HEADERS = [("content-type", "application/grpc"), ("te", "trailers")]
GRPC_BODY = b"\x00" + struct.pack(">I", 7) + b"\x0a\x05hello"


def http_seeds():
    reset(["http2"])
    start = PREFACE + SETTINGS
    write("http2", "h2-get", start + request(1, "GET", "/healthz"))
    write("http2", "h2-grpc", start + SETTINGS_ACK + request(1, "POST", "/svc/Method", GRPC_HEADERS, end_stream=False)
          + frame(0, 1, 1, GRPC_BODY))
    write("http2", "h2-many-streams", start + b"".join(
        request(stream, "POST", path, GRPC_HEADERS, end_stream=False) + frame(0, 1, stream, GRPC_BODY)
        for stream, path in ((1, "/a"), (3, "/defer/b"), (5, "/never/c"), (7, "/missing"), (9, "/d"))))
    write("http2", "h2-control", start + frame(6, 0, 0, b"12345678") + frame(8, 0, 0, struct.pack(">I", 1 << 20))
          + request(1, "GET", "/x", end_stream=False) + frame(8, 0, 1, struct.pack(">I", 100))
          + frame(3, 0, 1, struct.pack(">I", 8)) + frame(2, 0, 3, struct.pack(">IB", 1, 16))
          + request(5, "GET", "/y") + frame(7, 0, 0, struct.pack(">II", 5, 0)))
    headers = hpack([(":method", "POST"), (":scheme", "http"), (":authority", "h"), (":path", "/cont"),
                     ("x-long", "v" * 100)])
    write("http2", "h2-continuation", start + frame(1, 0, 1, headers[:40]) + frame(9, 0, 1, headers[40:80])
          + frame(9, 0x4, 1, headers[80:]) + frame(0, 0x8 | 0x1, 1, b"\x03abc\x00\x00\x00"))
    write("http2", "h2-body-too-large", start + request(1, "POST", "/big", end_stream=False)
          + frame(0, 0, 1, b"x" * 1500) + frame(0, 1, 1, b"y" * 1500))
    write("http2", "h2-trailers", start + request(1, "POST", "/t", GRPC_HEADERS, end_stream=False)
          + frame(0, 0, 1, GRPC_BODY) + frame(1, 0x5, 1, hpack([("x-trailer", "1")])))
    write("http2", "h2-big-headers", start + request(1, "GET", "/h", [("x-%d" % n, "v" * 120) for n in range(40)]))
    write("http2", "h2-preface-only", PREFACE)
    write("http2", "h1-get", b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    write("http2", "h1-post", b"POST /v1/x HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
          b"Content-Length: 13\r\n\r\n{\"app\": \"x\"}\n")
    write("http2", "h1-chunked-pipelined", b"POST /defer HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
          b"5\r\nhello\r\n0\r\n\r\nGET /never HTTP/1.1\r\nHost: h\r\n\r\nGET /z HTTP/1.1\r\nConnection: close\r\n\r\n")
    write("http2", "h1-upgrade", b"GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, HTTP2-Settings\r\n"
          b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")


if __name__ == "__main__":
    app_attest_seeds()
    request_seeds()
    grpc_seeds()
    http_seeds()
    for target in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, target))
        size = sum(os.path.getsize(os.path.join(CORPUS, target, f)) for f in files)
        print("%-14s %3d seeds %7d bytes" % (target, len(files), size))
