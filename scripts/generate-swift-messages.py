#!/usr/bin/env python3
"""Writes attestd's Swift message types from a FileDescriptorSet of Protos/ (scripts/generate-protos.sh runs it).

    generate-swift-messages.py DESCRIPTOR_SET SOURCES_DIR SAMPLES_FILE

DESCRIPTOR_SET is what `protoc-c --descriptor_set_out --include_source_info` writes for the .proto files. Into
SOURCES_DIR goes one Swift file per top-level message or enum: the struct with its public init, `///` comments taken
from the .proto comments, and its CBackedMessage conformance (descriptor name, init(reading:), write(to:)), so that
field numbers and types are stated once, in Protos/. SAMPLES_FILE is a test source: one value of every message with
every field set, for the round-trip test.

Standard library only: code generation needs nothing from PyPI.
"""

import os
import sys
import textwrap
from dataclasses import dataclass, field

# The Swift name of a message or enum is its proto name behind a prefix chosen per package, so that names stay
# short where they cannot clash and say where they come from where they could. A package not listed here is an
# error: adding a .proto means choosing its prefix.
PREFIXES = {
    "google.firebase.appcheck.v1": "",
    "attestd.v1": "",
    "grpc.health.v1": "",
    "google.protobuf": "Proto",
    "google.rpc": "RPC",
    "envoy.config.core.v3": "Envoy",
    "envoy.type.v3": "Envoy",
    "envoy.service.auth.v3": "Envoy",
}

WIDTH = 120

# FieldDescriptorProto.Type
DOUBLE, FLOAT, INT64, UINT64, INT32, FIXED64, FIXED32, BOOL, STRING, GROUP, MESSAGE, BYTES, UINT32, ENUM = range(1, 15)
REPEATED = 3  # FieldDescriptorProto.Label

SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
    "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
    "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
    "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as",
    "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "Type",
}


class GeneratorError(Exception):
    pass


# --- Protobuf wire format: just enough to read descriptor.proto messages. ---

def wire_fields(data):
    """The (number, value) pairs of an encoded message: an int for varint and fixed fields, bytes otherwise."""
    fields, i = [], 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, i = varint(data, i)
        elif wire_type == 1:
            value, i = int.from_bytes(data[i:i + 8], "little"), i + 8
        elif wire_type == 2:
            length, i = varint(data, i)
            value, i = data[i:i + length], i + length
        elif wire_type == 5:
            value, i = int.from_bytes(data[i:i + 4], "little"), i + 4
        else:
            raise GeneratorError(f"descriptor set: wire type {wire_type} is not used by descriptor.proto")
        fields.append((number, value))
    return fields


def varint(data, i):
    result = shift = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def signed32(value):
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def ints(value):
    """A repeated int32 field's values, packed (bytes) or not (one int)."""
    if isinstance(value, int):
        return [signed32(value)]
    out, i = [], 0
    while i < len(value):
        v, i = varint(value, i)
        out.append(signed32(v))
    return out


def text(value):
    return value.decode("utf-8")


# --- The descriptors, as far as Swift needs them. ---

@dataclass
class Field:
    name: str
    number: int
    label: int
    type: int
    type_name: str
    oneof_index: int | None
    comment: str
    json_name: str


@dataclass
class Oneof:
    name: str
    comment: str
    fields: list = field(default_factory=list)


@dataclass
class EnumValue:
    name: str
    number: int
    comment: str


@dataclass
class Enum:
    full_name: str
    swift_name: str
    comment: str
    values: list


@dataclass
class Message:
    full_name: str
    swift_name: str
    comment: str
    fields: list
    oneofs: list
    messages: list
    enums: list
    is_map_entry: bool
    proto_file: str


@dataclass
class File:
    name: str
    package: str
    messages: list
    enums: list


def comment_of(comments, path):
    return comments.get(tuple(path), "")


def read_descriptor_set(data):
    files = []
    for number, value in wire_fields(data):
        if number == 1:
            files.append(read_file(value))
    return files


def read_file(data):
    name = package = ""
    messages, enums, comments = [], [], {}
    raw_messages, raw_enums = [], []
    for number, value in wire_fields(data):
        if number == 1:
            name = text(value)
        elif number == 2:
            package = text(value)
        elif number == 4:
            raw_messages.append(value)
        elif number == 5:
            raw_enums.append(value)
        elif number == 9:
            comments = read_comments(value)
        elif number == 7:
            raise GeneratorError(f"{name}: extensions are not supported")
    if package not in PREFIXES:
        raise GeneratorError(f"{name}: package {package} has no Swift prefix; add it to PREFIXES")
    prefix = PREFIXES[package]
    for i, raw in enumerate(raw_messages):
        messages.append(read_message(raw, package, prefix, "", [4, i], comments, name))
    for i, raw in enumerate(raw_enums):
        enums.append(read_enum(raw, package, prefix, [5, i], comments))
    return File(name, package, messages, enums)


def read_comments(data):
    comments = {}
    for number, value in wire_fields(data):
        if number != 1:
            continue
        path, leading = [], ""
        for n, v in wire_fields(value):
            if n == 1:
                path.extend(ints(v))
            elif n == 3:
                leading = text(v)
        if leading:
            comments[tuple(path)] = leading
    return comments


def read_message(data, scope, prefix, swift_scope, path, comments, proto_file):
    name = ""
    raw_fields, raw_nested, raw_enums, oneof_names = [], [], [], []
    is_map_entry = False
    for number, value in wire_fields(data):
        if number == 1:
            name = text(value)
        elif number == 2:
            raw_fields.append(value)
        elif number == 3:
            raw_nested.append(value)
        elif number == 4:
            raw_enums.append(value)
        elif number == 7:
            is_map_entry = any(n == 7 and v for n, v in wire_fields(value))
        elif number == 8:
            oneof_names.append(next(text(v) for n, v in wire_fields(value) if n == 1))
        elif number in (5, 6):
            raise GeneratorError(f"{scope}.{name}: extensions are not supported")
    full_name = f"{scope}.{name}"
    swift_name = f"{swift_scope}.{name}" if swift_scope else prefix + name
    fields = [read_field(raw, path + [2, i], comments) for i, raw in enumerate(raw_fields)]
    oneofs = [Oneof(n, comment_of(comments, path + [8, i])) for i, n in enumerate(oneof_names)]
    for f in fields:
        if f.oneof_index is not None:
            oneofs[f.oneof_index].fields.append(f)
    nested = [read_message(raw, full_name, prefix, swift_name, path + [3, i], comments, proto_file)
              for i, raw in enumerate(raw_nested)]
    enums = [read_enum(raw, full_name, prefix, path + [4, i], comments, swift_name) for i, raw in enumerate(raw_enums)]
    return Message(full_name, swift_name, comment_of(comments, path), fields, oneofs, nested, enums, is_map_entry,
                   proto_file)


def read_field(data, path, comments):
    name = type_name = json_name = ""
    number = label = kind = 0
    oneof_index = None
    for n, v in wire_fields(data):
        if n == 1:
            name = text(v)
        elif n == 3:
            number = v
        elif n == 4:
            label = v
        elif n == 5:
            kind = v
        elif n == 6:
            type_name = text(v).lstrip(".")
        elif n == 9:
            oneof_index = v
        elif n == 10:
            json_name = text(v)
        elif n == 17 and v:
            raise GeneratorError(f"{name}: proto3 `optional` is not supported")
    return Field(name, number, label, kind, type_name, oneof_index, comment_of(comments, path), json_name)


def read_enum(data, scope, prefix, path, comments, swift_scope=""):
    name, values = "", []
    for n, v in wire_fields(data):
        if n == 1:
            name = text(v)
        elif n == 2:
            value_name, number = "", 0
            for vn, vv in wire_fields(v):
                if vn == 1:
                    value_name = text(vv)
                elif vn == 2:
                    number = signed32(vv)
            values.append(EnumValue(value_name, number, comment_of(comments, path + [2, len(values)])))
    swift_name = f"{swift_scope}.{name}" if swift_scope else prefix + name
    return Enum(f"{scope}.{name}", swift_name, comment_of(comments, path), values)


# --- Names and types. ---

def lower_camel(snake):
    """`key_id` → `keyID`, `headers_to_remove` → `headersToRemove`; Swift spells a trailing id as ID."""
    parts = snake.split("_")
    if len(parts) > 1 and parts[-1] == "id":
        parts[-1] = "ID"
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def upper_camel(snake):
    name = lower_camel(snake)
    return name[:1].upper() + name[1:]


def escaped(name):
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def argument_label(name):
    """A label at a call site: Swift takes any keyword there but these three unescaped."""
    return f"`{name}`" if name in {"inout", "var", "let"} else name


def enum_case_name(enum, value):
    """`ATTESTATION_ENVIRONMENT_DEVELOPMENT` → `development` (the enum's name as a prefix is dropped),
    `NOT_SERVING` → `notServing`, `BadRequest` → `badRequest`, `OK` → `ok`."""
    name = value.name
    short = enum.full_name.rsplit(".", 1)[1]
    prefix = "".join("_" + c if c.isupper() and i > 0 else c for i, c in enumerate(short)).upper() + "_"
    if all(v.name.startswith(prefix) and len(v.name) > len(prefix) for v in enum.values):
        name = name[len(prefix):]
    if name.isupper() or "_" in name:
        return lower_camel(name.lower())
    return name[:1].lower() + name[1:]


class Types:
    """Swift names of every message and enum, by full proto name."""

    def __init__(self, files):
        self.messages, self.enums = {}, {}
        for f in files:
            for m in f.messages:
                self.add_message(m)
            for e in f.enums:
                self.add_enum(e)
        names = [m.swift_name for m in self.messages.values()] + [e.swift_name for e in self.enums.values()]
        duplicates = {n for n in names if names.count(n) > 1}
        if duplicates:
            raise GeneratorError(f"Swift names used twice: {sorted(duplicates)}")

    def add_message(self, message):
        self.messages[message.full_name] = message
        for m in message.messages:
            self.add_message(m)
        for e in message.enums:
            self.add_enum(e)

    def add_enum(self, enum):
        self.enums[enum.full_name] = enum

    def map_entry(self, f):
        if f.label == REPEATED and f.type == MESSAGE and self.messages[f.type_name].is_map_entry:
            return self.messages[f.type_name]
        return None

    def scalar(self, f):
        """The Swift type, default value and reader/writer method of a singular field."""
        if f.type == MESSAGE:
            return self.messages[f.type_name].swift_name, "nil", "message"
        if f.type == ENUM:
            return self.enums[f.type_name].swift_name, ".init(rawValue: 0)", "int32"
        table = {
            STRING: ("String", '""', "string"),
            BYTES: ("[UInt8]", "[]", "bytes"),
            BOOL: ("Bool", "false", "bool"),
            INT32: ("Int32", "0", "int32"),
            UINT32: ("UInt32", "0", "uint32"),
            INT64: ("Int64", "0", "int64"),
            DOUBLE: ("Double", "0", "double"),
        }
        if f.type not in table:
            raise GeneratorError(f"field {f.name}: type {f.type} has no reader in MessageReader yet")
        return table[f.type]

    def swift_type(self, f):
        """The Swift type of a field as the struct stores it, and its default."""
        entry = self.map_entry(f)
        if entry:
            key, value = entry.fields
            return f"[{self.entry_value_type(key)}: {self.entry_value_type(value)}]", "[:]"
        swift, default, _ = self.scalar(f)
        if f.label == REPEATED:
            if f.type not in (STRING, MESSAGE):
                raise GeneratorError(f"field {f.name}: repeated {swift} has no reader in MessageReader yet")
            return f"[{swift}]", "[]"
        if f.type == MESSAGE:
            return f"{swift}?", "nil"
        return swift, default

    def entry_value_type(self, f):
        """A map's key or value type: a message value is never absent from an entry."""
        swift, _, _ = self.scalar(f)
        return swift


# --- Swift source. ---

def doc(comment, indent, lead=""):
    """`///` lines: `lead` then the comment's paragraphs, rewrapped to WIDTH."""
    lines = [line.strip() for line in comment.strip("\n").split("\n")] if comment.strip() else []
    paragraphs, current = [], []
    for line in lines:
        if line:
            current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    if lead:
        paragraphs = [lead + (" " + paragraphs[0] if paragraphs else "")] + paragraphs[1:]
    out = []
    for i, paragraph in enumerate(paragraphs):
        if i:
            out.append(f"{indent}///")
        for line in textwrap.wrap(paragraph, WIDTH - len(indent) - 4, break_long_words=False, break_on_hyphens=False):
            out.append(f"{indent}/// {line}")
    return out


def header(proto_file):
    return f"// Generated by scripts/generate-protos.sh from Protos/{proto_file}; do not edit.\n"


class SwiftWriter:
    def __init__(self, types):
        self.types = types

    # Enums: open, as proto3 enums are, so a number this copy of the .proto does not name survives a round trip.
    def enum(self, enum, indent):
        name = enum.swift_name.rsplit(".", 1)[-1]
        comment = enum.comment.rstrip() + "\nOpen, as proto3 enums are: unknown numbers survive."
        out = doc(comment, indent, f"`{enum.full_name}`:")
        out.append(f"{indent}public struct {name}: RawRepresentable, Hashable, Sendable, CustomStringConvertible {{")
        i2 = indent + "    "
        out += [f"{i2}public var rawValue: Int32", "",
                f"{i2}public init(rawValue: Int32) {{", f"{i2}    self.rawValue = rawValue", f"{i2}}}", ""]
        for value in enum.values:
            out += doc(value.comment, i2)
            out.append(f"{i2}public static let {escaped(enum_case_name(enum, value))} = "
                       f"{name}(rawValue: {value.number})")
        out += ["", f"{i2}/// The value's name in the .proto, or its number when it has none.",
                f"{i2}public var description: String {{", f"{i2}    switch rawValue {{"]
        for value in enum.values:
            out.append(f'{i2}    case {value.number}: "{value.name}"')
        out += [f"{i2}    default: String(rawValue)", f"{i2}    }}", f"{i2}}}", f"{indent}}}"]
        return out

    def members(self, message):
        """The struct's stored properties in .proto order: fields, and a oneof where its first member stands."""
        members, seen = [], set()
        for f in message.fields:
            if f.oneof_index is None:
                members.append(("field", f))
            elif f.oneof_index not in seen:
                seen.add(f.oneof_index)
                members.append(("oneof", message.oneofs[f.oneof_index]))
        return members

    def struct(self, message, indent):
        name = message.swift_name.rsplit(".", 1)[-1]
        i2 = indent + "    "
        if message.is_map_entry:
            key, value = message.fields
            return [f"{indent}/// An entry of a map field, as the wire carries it.",
                    f"{indent}struct {name} {{",
                    f"{i2}var key: {self.types.entry_value_type(key)}",
                    f"{i2}var value: {self.types.entry_value_type(value)}",
                    f"{indent}}}"]
        lead = f"`{message.full_name}`:" if message.comment.strip() else f"`{message.full_name}`."
        out = doc(message.comment, indent, lead)
        out.append(f"{indent}public struct {name}: ProtoMessage, Hashable {{")
        params = []
        for kind, member in self.members(message):
            if kind == "field":
                swift, default = self.types.swift_type(member)
                prop = escaped(lower_camel(member.name))
            else:
                swift, default = f"{upper_camel(member.name)}?", "nil"
                prop = escaped(lower_camel(member.name))
            out += doc(member.comment, i2)
            out.append(f"{i2}public var {prop}: {swift}")
            params.append((prop, swift, default))
        if params:
            out.append("")
        signature = ", ".join(f"{p}: {t} = {d}" for p, t, d in params)
        if len(f"{i2}public init({signature}) {{") <= WIDTH:
            out.append(f"{i2}public init({signature}) {{")
        else:
            out.append(f"{i2}public init(")
            out += [f"{i2}    {p}: {t} = {d}" + ("," if k < len(params) - 1 else "") for k, (p, t, d) in enumerate(params)]
            out.append(f"{i2}) {{")
        out += [f"{i2}    self.{p} = {p}" for p, _, _ in params]
        out.append(f"{i2}}}")
        for kind, member in self.members(message):
            if kind == "oneof":
                out.append("")
                out += self.oneof_enum(member, i2)
        for nested in message.enums:
            out.append("")
            out += self.enum(nested, i2)
        for nested in message.messages:
            out.append("")
            out += self.struct(nested, i2)
        out.append(f"{indent}}}")
        return out

    def oneof_enum(self, oneof, indent):
        out = doc(oneof.comment, indent, f"`{oneof.name}`:" if oneof.comment.strip() else f"`{oneof.name}`.")
        out.append(f"{indent}public enum {upper_camel(oneof.name)}: Hashable, Sendable {{")
        for f in oneof.fields:
            swift, _, _ = self.types.scalar(f)
            out += doc(f.comment, indent + "    ")
            out.append(f"{indent}    case {escaped(lower_camel(f.name))}({swift})")
        out.append(f"{indent}}}")
        return out

    def conformance(self, message):
        """The CBackedMessage extension of a message and, after it, of its nested messages."""
        protocol = "MapEntry" if message.is_map_entry else "CBackedMessage"
        out = ["", f"extension {message.swift_name}: {protocol} {{",
               f'    static let descriptor = MessageDescriptor("{message.full_name}")', "",
               "    init(reading message: MessageReader) throws(GRPCStatus) {"]
        for kind, member in self.members(message):
            out += self.read(message, kind, member)
        out += ["    }", "", "    func write(to message: MessageWriter) {"]
        for kind, member in self.members(message):
            out += self.write(message, kind, member)
        out += ["    }", "}"]
        for nested in message.messages:
            out += self.conformance(nested)
        return out

    def target(self, message, name):
        # `message` is the reader's and writer's name: a field of that name is reached through self.
        prop = escaped(lower_camel(name))
        return f"self.{prop}" if prop == "message" else prop

    def read_expression(self, message, f):
        entry = self.types.map_entry(f)
        if entry:
            return f"try message.map({f.number}, as: {entry.swift_name}.self)"
        swift, _, method = self.types.scalar(f)
        if f.label == REPEATED:
            return f"try message.{method}s({f.number}" + (f", as: {swift}.self)" if f.type == MESSAGE else ")")
        if f.type == MESSAGE:
            expression = f"try message.message({f.number}, as: {swift}.self)"
            return expression + f" ?? {swift}()" if message.is_map_entry else expression
        if f.type == ENUM:
            return f"{swift}(rawValue: message.int32({f.number}))"
        return ("try " if f.type == STRING else "") + f"message.{method}({f.number})"

    def read(self, message, kind, member):
        if kind == "field":
            return [f"        {self.target(message, member.name)} = {self.read_expression(message, member)}"]
        target = self.target(message, member.name)
        out = []
        for k, f in enumerate(member.fields):
            keyword_ = "if" if k == 0 else "} else if"
            case = escaped(lower_camel(f.name))
            if f.type == MESSAGE:
                swift, _, _ = self.types.scalar(f)
                out.append(f"        {keyword_} let value = try message.message({f.number}, as: {swift}.self) {{")
                out.append(f"            {target} = .{case}(value)")
            else:
                out.append(f"        {keyword_} message.has({f.number}) {{")
                out.append(f"            {target} = .{case}({self.read_expression(message, f)})")
        out += ["        } else {", f"            {target} = nil", "        }"]
        return out

    def write_statement(self, f, value):
        entry = self.types.map_entry(f)
        if entry:
            return f"message.map({f.number}, {value}, as: {entry.swift_name}.self)"
        _, _, method = self.types.scalar(f)
        if f.label == REPEATED:
            return f"message.{method}s({f.number}, {value})"
        if f.type == ENUM:
            return f"message.int32({f.number}, {value}.rawValue)"
        return f"message.{method}({f.number}, {value})"

    def write(self, message, kind, member):
        if kind == "field":
            return [f"        {self.write_statement(member, self.target(message, member.name))}"]
        out = [f"        switch {self.target(message, member.name)} {{"]
        for f in member.fields:
            out.append(f"        case .{escaped(lower_camel(f.name))}(let value): {self.write_statement(f, 'value')}")
        out += ["        case nil: break", "        }"]
        return out

    def message_file(self, message):
        lines = [header(message.proto_file), "import GRPC", ""]
        lines += self.struct(message, "")
        lines += self.conformance(message)
        return "\n".join(lines) + "\n"

    def enum_file(self, enum, proto_file):
        return "\n".join([header(proto_file)] + self.enum(enum, "")) + "\n"


# --- Samples for the round-trip test. ---

class Samples:
    """Swift expressions for a value of each message with every field set. Scalars take the next number of one
    counter, so that no two fields of a sample hold the same value and a field read from the wrong number shows."""

    def __init__(self, types):
        self.types = types
        self.counter = 0

    def next(self):
        self.counter += 1
        return self.counter

    def scalar(self, f, depth):
        if f.type == MESSAGE:
            return self.message(self.types.messages[f.type_name], depth + 1)
        if f.type == ENUM:
            enum = self.types.enums[f.type_name]
            return f"{enum.swift_name}(rawValue: {max(v.number for v in enum.values)})"
        n = self.next()
        if f.type == STRING:
            return f'"{f.name}-{n}"'
        if f.type == BYTES:
            return f"[{n % 256}, 0, 255]"
        if f.type == BOOL:
            return "true"
        if f.type == DOUBLE:
            return f"{n}.5"
        return str(n)

    def field(self, f, depth):
        entry = self.types.map_entry(f)
        if entry:
            key, value = entry.fields
            pairs = [f"{self.scalar(key, depth)}: {self.scalar(value, depth)}" for _ in range(2)]
            return "[" + ", ".join(pairs) + "]"
        if f.label == REPEATED:
            return "[" + ", ".join(self.scalar(f, depth) for _ in range(2)) + "]"
        return self.scalar(f, depth)

    def message(self, message, depth=0, choices=None):
        if depth > 8:
            raise GeneratorError(f"{message.full_name} contains itself; samples cannot be generated")
        choices = choices or {}
        arguments = []
        for kind, member in SwiftWriter(self.types).members(message):
            label = argument_label(lower_camel(member.name))
            if kind == "field":
                arguments.append(f"{label}: {self.field(member, depth)}")
            else:
                f = member.fields[choices.get(member.name, 0)]
                arguments.append(f"{label}: .{escaped(lower_camel(f.name))}({self.scalar(f, depth)})")
        return f"{message.swift_name}({', '.join(arguments)})"

    def variants(self, message):
        """(name, expression) for the message, and one more per further member of each oneof."""
        base = message.swift_name.replace(".", "")
        # RPCStatus → rpcStatus: a leading acronym is lower-cased whole.
        upper = len(base) - len(base.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        upper = upper - 1 if 1 < upper < len(base) else upper
        base = base[:upper].lower() + base[upper:]
        out = [(base, self.message(message))]
        for oneof in message.oneofs:
            for k, f in enumerate(oneof.fields[1:], start=1):
                out.append((base + upper_camel(f.name), self.message(message, choices={oneof.name: k})))
        return out

    def file(self, messages):
        entries = [v for m in messages if not m.is_map_entry for v in self.variants(m)]
        lines = ["// Generated by scripts/generate-protos.sh from Protos/; do not edit.", "",
                 "import AppCheckMessages", "",
                 "/// One value of every generated message with every field set (and one more for each further member",
                 "/// of a oneof), no two scalar fields of a value alike. Made afresh on each use rather than kept in",
                 "/// globals: Swift keeps a oneof's case in spare bits of its payload's pointer, which LeakSanitizer",
                 "/// cannot follow from a global, so a global sample would be reported as a leak.",
                 "enum GeneratedSamples {",
                 "    static var all: [any ProtoMessage & Hashable] {",
                 "        ["]
        lines += [f"            {name}," for name, _ in entries]
        lines.append("        ]")
        lines.append("    }")
        for name, expression in entries:
            type_name = expression.split("(", 1)[0]
            lines.append("")
            lines += wrap_at_commas(f"    static var {name}: {type_name} {{ {expression} }}", "        ")
        lines.append("}")
        return "\n".join(lines) + "\n"


def wrap_at_commas(line, indent):
    """Breaks a long expression after its commas (the samples' strings hold none), filling lines up to WIDTH."""
    pieces = line.split(", ")
    lines, current = [], pieces[0]
    for piece in pieces[1:]:
        if len(current) + 2 + len(piece) + 1 <= WIDTH:
            current += ", " + piece
        else:
            lines.append(current + ",")
            current = indent + piece
    return lines + [current]


def all_messages(messages):
    for m in messages:
        yield m
        yield from all_messages(m.messages)


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    _, descriptor_set, sources, samples_file = argv
    with open(descriptor_set, "rb") as f:
        files = read_descriptor_set(f.read())
    types = Types(files)
    writer = SwiftWriter(types)
    os.makedirs(sources, exist_ok=True)
    for proto in files:
        for message in proto.messages:
            with open(os.path.join(sources, message.swift_name + ".swift"), "w") as f:
                f.write(writer.message_file(message))
        for enum in proto.enums:
            with open(os.path.join(sources, enum.swift_name + ".swift"), "w") as f:
                f.write(writer.enum_file(enum, proto.name))
    os.makedirs(os.path.dirname(samples_file), exist_ok=True)
    with open(samples_file, "w") as f:
        f.write(Samples(types).file([m for proto in files for m in all_messages(proto.messages)]))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except GeneratorError as error:
        print(f"generate-swift-messages: {error}", file=sys.stderr)
        sys.exit(1)
