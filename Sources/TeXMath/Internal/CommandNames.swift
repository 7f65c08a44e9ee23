// The names the converter recognises, gathered from the tables and handlers it dispatches on, so
// that checks outside the converter (a command that lost its backslash, a control character that
// ate one) know exactly what TeX this project renders.

extension Converter {
    /// Control words handled inline by the list parser or the text parser rather than through a
    /// table: infix fractions, style and size switches, `\end`, `\right`, row breaks, `\verb`.
    static let inlineHandledCommands: Set<String> = [
        "over", "atop", "choose", "brace", "brack", "above", "abovewithdelims", "atopwithdelims", "overwithdelims",
        "displaystyle", "textstyle", "scriptstyle", "scriptscriptstyle", "end", "right", "middle", "cr", "newline",
        "tabularnewline", "par", "verb", "lt", "gt", "backslash",
    ]

    /// Environments `\begin{…}` opens without an "Unknown environment" warning (see
    /// `environmentAction`).
    static let environmentNames: Set<String> = [
        "matrix", "matrix*", "pmatrix", "pmatrix*", "bmatrix", "bmatrix*", "Bmatrix", "Bmatrix*", "vmatrix", "vmatrix*",
        "Vmatrix", "Vmatrix*", "smallmatrix", "psmallmatrix", "bsmallmatrix", "Bsmallmatrix", "vsmallmatrix",
        "Vsmallmatrix", "array", "darray", "subarray", "cases", "dcases", "rcases", "drcases", "cases*", "dcases*",
        "aligned", "align", "align*", "split", "flalign", "flalign*", "eqnarray", "eqnarray*", "alignat", "alignat*",
        "alignedat", "xalignat", "xxalignat", "darray*", "gathered", "gather", "gather*", "multline", "multline*",
        "center", "equation", "equation*", "math", "displaymath",
    ]

    static let allCommandNames: Set<String> = {
        var names = Set(Symbols.table.keys).union(Symbols.textTable.keys)
        names.formUnion(accents.keys)
        names.formUnion(textAccents.keys)
        names.formUnion(argumentFonts.keys)
        names.formUnion(textFonts.keys)
        names.formUnion(spaces.keys)
        names.formUnion(extensibleArrows.keys)
        names.formUnion(contentOnlyWithOneDroppedArgument)
        names.formUnion(ignoredCommands)
        names.formUnion(ignoredWithArgument)
        names.formUnion(handlers.keys)
        names.formUnion(switchFonts.keys)
        names.formUnion(sizes.keys)
        names.formUnion(inlineHandledCommands)
        for size in bigSizes.keys {
            names.insert(size)
            for suffix in ["l", "r", "m"] { names.insert(size + suffix) }
        }
        names.remove("")
        // MediaWiki's aliases (\sub, \part, \real, \empty …) render, but are English words too
        // often for a bare one in math to mean a lost backslash.
        names.subtract(Symbols.texvcAliases)
        return names
    }()

    static let singleSymbolCommandNames: Set<String> = Set(
        Symbols.table.filter { $0.value.symbolClass != .function && $0.value.symbolClass != .namedOperator }.keys
    ).subtracting(Symbols.texvcAliases)

    static let operatorNameCommandNames: Set<String> = Set(
        Symbols.table.filter { $0.value.symbolClass == .function || $0.value.symbolClass == .namedOperator }.keys
    ).subtracting(Symbols.texvcAliases)
}

extension TeXMath {
    /// Every control-sequence name `convert` recognises, without the backslash: symbols, Greek
    /// letters, functions, accents, fonts, spaces, structural commands (`frac`, `sqrt`, `left`,
    /// `begin` …) and the text-mode commands of `\text{…}`. Includes control symbols such as `,`
    /// and `{`; a name not in this set renders as an error, apart from MediaWiki's alternative
    /// names (`\sub`, `\part`, `\real` …), which render but are left out of these sets: as bare
    /// words in math they are more often words than commands that lost their backslash.
    public static var knownCommands: Set<String> { Converter.allCommandNames }

    /// The subset of ``knownCommands`` that stands alone for one symbol and takes no argument:
    /// Greek letters, operators, relations, arrows, delimiters, dots (`alpha`, `times`, `leq`,
    /// `infty`, `rangle` …). Operator names such as `sin` are in ``operatorNames`` instead.
    public static var symbolCommands: Set<String> { Converter.singleSymbolCommandNames }

    /// Function and operator names that render as an upright word (`sin`, `log`, `max`, `lim`,
    /// `det` …): written without the backslash they still read as the same word.
    public static var operatorNames: Set<String> { Converter.operatorNameCommandNames }

    /// Environment names `\begin{…}` accepts (`aligned`, `cases`, `pmatrix`, `array` …).
    public static var knownEnvironments: Set<String> { Converter.environmentNames }
}
