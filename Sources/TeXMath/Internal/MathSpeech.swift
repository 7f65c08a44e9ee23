import LecternLanguage

/// Math read aloud from its structure (the converter's tree, not the TeX text): `x^2 + 1` is
/// "x squared plus 1", `\frac{a+b}{2}` "the fraction a plus b, over 2, end fraction". The style
/// follows the habits of spoken math (ClearSpeak's defaults, simplified): simple fractions and
/// powers are read short, compound ones get spoken brackets ("the fraction … end fraction") so a
/// listener knows where they end.
struct MathSpeech {
    /// The words for one language.
    struct Words: Sendable {
        var operators: [String: String]
        var functions: [String: String]
        var letters: [String: String]
        var accents: [String: String]
        var largeOperators: [String: String]
        var squared, cubed, power, endPower, over, fraction, endFraction, squareRoot, cubeRoot, endRoot: String
        /// "the", "th", "root of": the n-th root's words around the index.
        var nthRoot: (String, String, String)
        var sub, of, openParen, closeParen, from, to, limit, matrix, row, primeWord: String
    }

    static let english = Words(
        operators: [
            "+": "plus", "−": "minus", "-": "minus", "=": "equals", "×": "times", "⋅": "times", "·": "times", "∗": "times", "*": "times",
            "÷": "divided by", "/": "divided by", "±": "plus or minus", "∓": "minus or plus", "<": "is less than", ">": "is greater than",
            "≤": "is less than or equal to", "≥": "is greater than or equal to", "≠": "is not equal to", "≈": "is approximately",
            "≡": "is equivalent to", "∝": "is proportional to", "→": "tends to", "⇒": "implies", "⟹": "implies", "⇔": "if and only if",
            "⟺": "if and only if", "∈": "is in", "∉": "is not in", "⊂": "is a subset of", "⊆": "is a subset of", "∪": "union",
            "∩": "intersection", "∞": "infinity", "!": "factorial", "%": "percent", ",": ",", ";": ",", ":": "such that", "|": "",
            "∣": "divides", "∠": "angle", "°": "degrees", "∘": "composed with", "∂": "partial", "∇": "del", "…": "and so on",
            "⋯": "and so on", "…,": "and so on", "′": "prime", "″": "double prime", "∀": "for all", "∃": "there exists", "¬": "not",
            "∧": "and", "∨": "or", "⊥": "is perpendicular to", "∥": "is parallel to", "≅": "is congruent to", "∼": "is similar to",
        ],
        functions: [
            "sin": "sine", "cos": "cosine", "tan": "tangent", "cot": "cotangent", "sec": "secant", "csc": "cosecant", "log": "log",
            "ln": "natural log", "exp": "exp", "lim": "the limit", "max": "max", "min": "min", "det": "determinant", "gcd": "gcd",
            "arcsin": "arc sine", "arccos": "arc cosine", "arctan": "arc tangent", "sinh": "hyperbolic sine", "cosh": "hyperbolic cosine",
        ],
        letters: [
            "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon", "ζ": "zeta", "η": "eta", "θ": "theta",
            "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau",
            "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "capital gamma", "Δ": "capital delta",
            "Θ": "capital theta", "Λ": "capital lambda", "Σ": "capital sigma", "Φ": "capital phi", "Ψ": "capital psi", "Ω": "capital omega",
            "ℝ": "the real numbers", "ℕ": "the natural numbers", "ℤ": "the integers", "ℚ": "the rationals", "ℂ": "the complex numbers",
        ],
        accents: ["¯": "bar", "‾": "bar", "^": "hat", "ˆ": "hat", "→": "vector", "⃗": "vector", "˙": "dot", "~": "tilde", "˜": "tilde"],
        largeOperators: ["∑": "the sum", "∏": "the product", "∫": "the integral", "∮": "the contour integral", "⋃": "the union", "⋂": "the intersection"],
        squared: "squared", cubed: "cubed", power: "to the power", endPower: "end power", over: "over", fraction: "the fraction",
        endFraction: "end fraction", squareRoot: "the square root of", cubeRoot: "the cube root of", endRoot: "end root", nthRoot: ("the", "th", "root of"),
        sub: "sub", of: "of", openParen: "open paren", closeParen: "close paren", from: "from", to: "to", limit: "as", matrix: "the matrix with rows",
        row: "row", primeWord: "prime")

    static let arabic = Words(
        operators: [
            "+": "زائد", "−": "ناقص", "-": "ناقص", "=": "يساوي", "×": "ضرب", "⋅": "ضرب", "·": "ضرب", "∗": "ضرب", "*": "ضرب",
            "÷": "مقسوما على", "/": "مقسوما على", "±": "زائد أو ناقص", "<": "أصغر من", ">": "أكبر من", "≤": "أصغر من أو يساوي",
            "≥": "أكبر من أو يساوي", "≠": "لا يساوي", "≈": "يساوي تقريبا", "→": "يؤول إلى", "∈": "ينتمي إلى", "∞": "ما لا نهاية",
            "!": "مضروب", "%": "بالمئة", ",": "،", ";": "،", "|": "", "°": "درجة", "′": "شرطة", "…": "وهكذا", "⋯": "وهكذا",
        ],
        functions: ["sin": "جيب", "cos": "جيب التمام", "tan": "ظل", "log": "لوغاريتم", "ln": "اللوغاريتم الطبيعي", "lim": "النهاية"],
        letters: ["α": "ألفا", "β": "بيتا", "γ": "جاما", "δ": "دلتا", "θ": "ثيتا", "λ": "لامدا", "μ": "ميو", "π": "باي", "σ": "سيجما", "ω": "أوميجا"],
        accents: ["¯": "بار", "‾": "بار", "→": "متجه", "⃗": "متجه", "^": "هات"],
        largeOperators: ["∑": "المجموع", "∏": "حاصل الضرب", "∫": "التكامل"],
        squared: "تربيع", cubed: "تكعيب", power: "أس", endPower: "نهاية الأس", over: "على", fraction: "الكسر", endFraction: "نهاية الكسر",
        squareRoot: "الجذر التربيعي لـ", cubeRoot: "الجذر التكعيبي لـ", endRoot: "نهاية الجذر", nthRoot: ("الجذر من الرتبة", "", "لـ"), sub: "دليل", of: "لـ",
        openParen: "قوس", closeParen: "نهاية القوس", from: "من", to: "إلى", limit: "عندما", matrix: "المصفوفة ذات الصفوف", row: "الصف",
        primeWord: "شرطة")

    let words: Words

    init(language: String) {
        words = LanguageSubtag.is(language, "ar") ? Self.arabic : Self.english
    }

    /// The spoken text of a converted formula's top-level nodes.
    func read(_ nodes: [MathNode]) -> String {
        tidy(readRow(nodes))
    }

    /// The parts joined by single spaces, with no space before a comma and none at the ends
    /// (this module has no Foundation).
    private func tidy(_ parts: [String]) -> String {
        var out = ""
        for character in parts.joined(separator: " ") {
            if character == " " {
                if !out.isEmpty && out.last != " " { out.append(" ") }
            } else if character == "," || character == "،" {
                if out.last == " " { out.removeLast() }
                if out.last != character { out.append(character) }
            } else {
                out.append(character)
            }
        }
        while out.last == " " || out.last == "," { out.removeLast() }
        return out
    }

    private static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }

    /// A row: its children in order; a parenthesis right after a function name or a single
    /// letter reads "of" (f(x) is "f of x") and its partner is silent.
    private func readRow(_ nodes: [MathNode]) -> [String] {
        var parts: [String] = []
        var openers: [Bool] = []  // per open parenthesis: read as "of" (its closer silent)
        for (i, node) in nodes.enumerated() {
            if node.tag == .mo, ["(", "[", "{"].contains(node.text) {
                let previous = i > 0 ? nodes[i - 1] : nil
                let applied = previous.map { isFunctionLike($0) } ?? false
                openers.append(applied)
                parts.append(applied ? words.of : (node.text == "{" ? "" : words.openParen))
                continue
            }
            if node.tag == .mo, [")", "]", "}"].contains(node.text) {
                let applied = openers.popLast() ?? false
                parts.append(applied || node.text == "}" ? "" : words.closeParen)
                continue
            }
            // `(a+b)^2`: the script sits on the closing parenthesis.
            if [.msup, .msub, .msubsup].contains(node.tag), let closer = node.children.first, closer.tag == .mo,
                [")", "]"].contains(closer.text), node.children.count >= 2
            {
                let applied = openers.popLast() ?? false
                parts.append(applied ? "" : words.closeParen)
                switch node.tag {
                case .msup: parts.append(power(node.children[1]))
                case .msub: parts += [words.sub, read(node.children[1])]
                default: parts += [words.sub, read(node.children[1]) + ",", node.children.count > 2 ? power(node.children[2]) : ""]
                }
                continue
            }
            parts.append(read(node))
        }
        return parts
    }

    private func isFunctionLike(_ node: MathNode) -> Bool {
        switch node.tag {
        case .mi: return node.role == .function || node.text.count == 1 || words.functions[node.text] != nil
        case .msub, .msup: return node.children.first.map(isFunctionLike) ?? false
        default: return false
        }
    }

    /// Whether a node reads as one short word or number (no spoken brackets needed around it).
    private func isSimple(_ node: MathNode) -> Bool {
        switch node.tag {
        case .mi, .mn, .mtext: return true
        case .mrow, .mstyle, .mpadded: return node.children.count == 1 && isSimple(node.children[0])
        default: return false
        }
    }

    private func read(_ node: MathNode) -> String {
        switch node.tag {
        case .math, .semantics, .mrow, .mstyle, .mpadded:
            return tidy(readRow(node.children))
        case .annotation, .mphantom, .merror, .none, .mprescripts:
            return ""
        case .mspace:
            return ""
        case .mi:
            if let name = words.functions[node.text] { return name }
            if let name = words.letters[node.text] { return name }
            return node.text
        case .mn:
            return node.text
        case .mtext:
            return Self.trimmed(node.text)
        case .mo:
            if let name = words.operators[node.text] { return name }
            if let name = words.largeOperators[node.text] { return name }
            if let name = words.functions[node.text] { return name }
            return node.role == .namedOperator ? node.text : ""
        case .mfrac:
            guard node.children.count == 2 else { return tidy(node.children.map(read)) }
            let (top, bottom) = (node.children[0], node.children[1])
            if node.attribute(.linethickness) == "0" { return tidy([read(top), read(bottom)]) }  // binomials, stacked limits
            if isSimple(top) && isSimple(bottom) { return tidy([read(top), words.over, read(bottom)]) }
            return tidy([words.fraction, read(top) + ",", words.over, read(bottom) + ",", words.endFraction])
        case .msqrt:
            let inner = tidy(readRow(node.children))
            return node.children.count == 1 && isSimple(node.children[0])
                ? tidy([words.squareRoot, inner]) : tidy([words.squareRoot, inner + ",", words.endRoot])
        case .mroot:
            guard node.children.count == 2 else { return "" }
            let index = read(node.children[1])
            let head = index == "3" ? words.cubeRoot : index == "2" ? words.squareRoot : tidy([words.nthRoot.0, index + words.nthRoot.1, words.nthRoot.2])
            return isSimple(node.children[0]) ? tidy([head, read(node.children[0])]) : tidy([head, read(node.children[0]) + ",", words.endRoot])
        case .msup:
            guard node.children.count == 2 else { return "" }
            return tidy([base(node.children[0]), power(node.children[1])])
        case .msub:
            guard node.children.count == 2 else { return "" }
            if let limits = bigOperator(node.children[0], under: node.children[1], over: nil) { return limits }
            return tidy([base(node.children[0]), words.sub, read(node.children[1])])
        case .msubsup:
            guard node.children.count == 3 else { return "" }
            if let limits = bigOperator(node.children[0], under: node.children[1], over: node.children[2]) { return limits }
            return tidy([base(node.children[0]), words.sub, read(node.children[1]) + ",", power(node.children[2])])
        case .munder:
            guard node.children.count == 2 else { return "" }
            if let limits = bigOperator(node.children[0], under: node.children[1], over: nil) { return limits }
            return tidy([read(node.children[0]), accent(node.children[1]) ?? read(node.children[1])])
        case .mover:
            guard node.children.count == 2 else { return "" }
            if let limits = bigOperator(node.children[0], under: nil, over: node.children[1]) { return limits }
            if let accent = accent(node.children[1]) {
                return accent == "vector" || accent == "متجه" ? tidy([accent, read(node.children[0])]) : tidy([read(node.children[0]), accent])
            }
            return tidy([read(node.children[0]), read(node.children[1])])
        case .munderover:
            guard node.children.count == 3 else { return "" }
            if let limits = bigOperator(node.children[0], under: node.children[1], over: node.children[2]) { return limits }
            return tidy(node.children.map(read))
        case .mmultiscripts:
            return tidy(node.children.map(read))
        case .mtable:
            let rows = node.children.enumerated().map { i, row in
                tidy([words.row, "\(i + 1):"] + row.children.map { read($0) + "," })
            }
            return rows.count > 1 ? tidy([words.matrix + ":"] + rows) : tidy(rows)
        case .mtr, .mtd:
            return tidy(node.children.map(read))
        }
    }

    /// A base of a script: a compound one is said as "the quantity … ," would be ClearSpeak's;
    /// spoken parentheses already mark it, so it is read as it stands.
    private func base(_ node: MathNode) -> String { read(node) }

    private func power(_ exponent: MathNode) -> String {
        let text = read(exponent)
        if text == "2" { return words.squared }
        if text == "3" { return words.cubed }
        if ["′", "″", "prime", "double prime"].contains(text) || text == words.primeWord { return text }
        return isSimple(exponent) ? tidy([words.power, text]) : tidy([words.power, text + ",", words.endPower])
    }

    private func accent(_ node: MathNode) -> String? {
        guard node.tag == .mo else { return nil }
        return words.accents[node.text]
    }

    /// ∑, ∏, ∫ and lim with their limits: "the sum from i equals 1 to n of".
    private func bigOperator(_ base: MathNode, under: MathNode?, over: MathNode?) -> String? {
        let core = base.tag == .mo ? base.text : (base.tag == .mi ? base.text : "")
        if let name = words.largeOperators[core] {
            var parts = [name]
            if let under { parts += [words.from, read(under)] }
            if let over { parts += [words.to, read(over)] }
            parts.append(words.of)
            return tidy(parts)
        }
        if core == "lim", let under {
            return tidy([words.functions["lim"] ?? "lim", words.limit, read(under), words.of])
        }
        return nil
    }
}

extension TeXMath {
    /// `tex` as words a listener can follow, read from its structure (`x^2+1` → "x squared plus 1",
    /// `\frac{a+b}{2}` → "the fraction a plus b, over 2, end fraction"); English, or Arabic for
    /// `ar…` languages. Unknown symbols are left out rather than spelled.
    public static func speech(_ tex: String, language: String = "en") -> String {
        let converter = Converter(source: tex, display: false)
        var content = converter.parseTop()
        if let tag = converter.pendingTag { content.append(tag) }
        return MathSpeech(language: language).read(content)
    }
}
