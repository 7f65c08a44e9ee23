/// A user macro from `\newcommand`, `\def`, `\DeclareMathOperator` …
struct MacroDefinition: Sendable {
    var parameterCount: Int
    /// `\newcommand{\x}[2][default]{…}`: the first parameter is optional with this default.
    var optionalDefault: [Token]?
    var body: [Token]
}

/// A user environment from `\newenvironment`.
struct EnvironmentDefinition: Sendable {
    var parameterCount: Int
    var optionalDefault: [Token]?
    var begin: [Token]
    var end: [Token]
}

/// The token input of one conversion with macro expansion at its head.
///
/// Expansion pushes the substituted body as a new frame instead of splicing arrays, so each step
/// costs the body length only. Both the number of expansions and the number of tokens they
/// produce are capped: recursive definitions (`\def\a{\a}`, `\def\a{x\a\a}`) end with a clean
/// error instead of hanging or exhausting memory.
final class TokenStream {
    private struct Frame {
        var tokens: [Token]
        var index: Int
    }

    /// Like KaTeX's `maxExpand`. Output grows with expanded tokens, so the token cap is what keeps
    /// a short self-doubling macro (`\def\a{\a\a}`) from producing megabytes of MathML.
    static let maxExpansions = 1_000
    static let maxExpandedTokens = 20_000

    /// The frame being read, kept out of `saved` so that reading a token copies no array.
    private var tokens: [Token]
    private var index = 0
    /// Frames under the current one (the input a splice interrupted), innermost last.
    private var saved: [Frame] = []
    var macros: [String: MacroDefinition] = [:]
    var environments: [String: EnvironmentDefinition] = [:]
    private(set) var expansions = 0
    private(set) var expandedTokens = 0
    /// Set once a limit was hit; the rest of the input is then dropped.
    private(set) var limitExceeded = false

    init(tokens: [Token]) {
        self.tokens = tokens
    }

    // MARK: Raw access (no expansion)

    func peekRaw() -> Token? {
        while index >= tokens.count {
            guard let frame = saved.popLast() else { return nil }
            tokens = frame.tokens
            index = frame.index
        }
        return tokens[index]
    }

    func nextRaw() -> Token? {
        guard let token = peekRaw() else { return nil }
        index += 1
        return token
    }

    /// Puts tokens back in front of the input (used to un-read a lookahead or splice a body).
    func pushFront(_ tokens: [Token]) {
        guard !tokens.isEmpty else { return }
        // An exhausted frame is dropped rather than kept, so tail-recursive macros do not grow
        // the frame stack.
        if index < self.tokens.count { saved.append(Frame(tokens: self.tokens, index: index)) }
        self.tokens = tokens
        index = 0
    }

    /// Drops everything that is left (after a limit was hit).
    func discardAll() {
        tokens = []
        index = 0
        saved = []
    }

    // MARK: Expanded access

    /// The next token after expanding user macros at the head of the input.
    func peek() -> Token? {
        while let token = peekRaw() {
            guard !macros.isEmpty, case .command(let name) = token, let macro = macros[name] else { return token }
            _ = nextRaw()
            expand(macro)
        }
        return nil
    }

    func next() -> Token? {
        guard let token = peek() else { return nil }
        _ = nextRaw()
        return token
    }

    /// Splices tokens produced by a definition (a user environment's begin/end code) and counts
    /// them against the same limits as macro expansion, so self-referencing environments stop.
    func pushExpansion(_ tokens: [Token]) {
        expansions += 1
        expandedTokens += tokens.count
        guard expansions <= Self.maxExpansions, expandedTokens <= Self.maxExpandedTokens else {
            limitExceeded = true
            discardAll()
            return
        }
        pushFront(tokens)
    }

    private func expand(_ macro: MacroDefinition) {
        expansions += 1
        guard expansions <= Self.maxExpansions, expandedTokens <= Self.maxExpandedTokens else {
            limitExceeded = true
            discardAll()
            return
        }
        var arguments: [[Token]] = []
        var remaining = macro.parameterCount
        if let fallback = macro.optionalDefault, remaining > 0 {
            arguments.append(readOptionalRaw() ?? fallback)
            remaining -= 1
        }
        while remaining > 0 {
            arguments.append(readArgumentRaw())
            remaining -= 1
        }
        let body = Self.substitute(macro.body, arguments)
        expandedTokens += body.count
        if expandedTokens > Self.maxExpandedTokens {
            limitExceeded = true
            discardAll()
            return
        }
        pushFront(body)
    }

    static func substitute(_ body: [Token], _ arguments: [[Token]]) -> [Token] {
        guard !arguments.isEmpty else { return body }
        var result: [Token] = []
        result.reserveCapacity(body.count)
        for token in body {
            if case .parameter(let n) = token {
                if n <= arguments.count { result.append(contentsOf: arguments[n - 1]) }
            } else {
                result.append(token)
            }
        }
        return result
    }

    // MARK: Raw arguments

    func skipRawSpaces() {
        while peekRaw() == .space { _ = nextRaw() }
    }

    /// One undelimited macro argument: a balanced `{…}` without its braces, or a single token.
    func readArgumentRaw() -> [Token] {
        skipRawSpaces()
        guard let first = nextRaw() else { return [] }
        guard first == .beginGroup else { return [first] }
        return readBalancedRaw()
    }

    /// Tokens up to the `}` matching an already consumed `{` (which is dropped, like the `{`).
    func readBalancedRaw() -> [Token] {
        var depth = 1
        var collected: [Token] = []
        while let token = nextRaw() {
            if token == .beginGroup {
                depth += 1
            } else if token == .endGroup {
                depth -= 1
                if depth == 0 { return collected }
            }
            collected.append(token)
        }
        return collected
    }

    /// `[…]` at the head of the input (brace-balanced), or nil when there is none.
    func readOptionalRaw() -> [Token]? {
        skipRawSpaces()
        guard peekRaw() == .char("[") else { return nil }
        _ = nextRaw()
        var depth = 0
        var collected: [Token] = []
        while let token = nextRaw() {
            switch token {
            case .beginGroup: depth += 1
            case .endGroup: depth -= 1
            case .char("]") where depth == 0: return collected
            default: break
            }
            collected.append(token)
        }
        return collected
    }
}
