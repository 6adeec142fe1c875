/// What a command argument may be: Redis takes every argument as a byte string.
protocol RedisArgument {
    var redisBytes: [UInt8] { get }
}

extension String: RedisArgument {
    var redisBytes: [UInt8] { Array(utf8) }
}

extension Array: RedisArgument where Element == UInt8 {
    var redisBytes: [UInt8] { self }
}

extension Int: RedisArgument {
    var redisBytes: [UInt8] { Array(String(self).utf8) }
}

extension Int64: RedisArgument {
    var redisBytes: [UInt8] { Array(String(self).utf8) }
}
