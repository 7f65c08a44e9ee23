/// SplitMix64 (Steele, Lea and Flood, 2014): a small, fast, seedable generator. Lectern uses it
/// wherever a run must draw the same numbers on every machine — the mock server's faults, the spec
/// fuzzer's mutations, generated TeX, the render benchmark's lectures — since the standard
/// library's generator is seeded randomly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
