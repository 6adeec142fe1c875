/// One command of a pipelined batch (`RedisBatcher`): a server-side script, run by its hash once the store knows
/// it, or a plain command.
enum RedisCall: Sendable {
    case script(RedisScript, keys: [[UInt8]], arguments: [any RedisArgument])
    case command([any RedisArgument])

    /// The command to send: EVALSHA when `hashes` knows the script, else EVAL with its source.
    func arguments(hashes: [String: String]) -> [any RedisArgument] {
        switch self {
        case .script(let script, let keys, let arguments):
            if let hash = hashes[script.name] { return ["EVALSHA", hash, keys.count] + keys + arguments }
            return ["EVAL", script.source, keys.count] + keys + arguments
        case .command(let arguments):
            return arguments
        }
    }

    var script: RedisScript? {
        if case .script(let script, _, _) = self { return script }
        return nil
    }
}
