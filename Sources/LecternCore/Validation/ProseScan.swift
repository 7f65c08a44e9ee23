/// Scanners for the patterns the question checks read on every answer, each doing in one pass
/// over the text's characters what a Swift Regex did by trying every start position (the
/// question-sentence pattern backtracked over each sentence from each of its characters: a third
/// of a replay's CPU). Each one's doc names the pattern it stands for; `ProseScanTests` holds
/// every one to its pattern on every text of every committed cassette, and on edge cases.
/// Characters (grapheme clusters) are compared, as a Swift Regex compares them.
public enum ProseScan {
    /// Sentence ends the question patterns stop at (`[^.!?؟\n]`).
    static func endsSentence(_ c: Character) -> Bool { c == "." || c == "!" || c == "?" || c == "؟" || c == "\n" }

    static func isQuestionMark(_ c: Character) -> Bool { c == "?" || c == "؟" }

    /// The matches of `/[^.!?؟\n]*[?؟]+/` (`repeated`: the marks after the first are the
    /// match's too) or `/[^.!?؟\n]*[?؟]/`, left to right: a stretch without a sentence end,
    /// ended by a question mark.
    public static func questionSentences(_ text: String, repeated: Bool) -> [Range<String.Index>] {
        var found: [Range<String.Index>] = []
        var start = text.startIndex
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if isQuestionMark(c) {
                var end = text.index(after: i)
                if repeated {
                    while end < text.endIndex, isQuestionMark(text[end]) { end = text.index(after: end) }
                }
                found.append(start..<end)
                start = end
                i = end
            } else if endsSentence(c) {
                // A stretch ended by '.', '!' or a line break matches nothing; the next begins after it.
                i = text.index(after: i)
                start = i
            } else {
                i = text.index(after: i)
            }
        }
        return found
    }

    /// `text.replacing(/[?؟!.]+(?=["'”’»])/, with: "")`: sentence marks right before a closing
    /// quotation mark taken out.
    public static func removingMarksBeforeQuotes(_ text: String) -> String {
        func isMark(_ c: Character) -> Bool { c == "?" || c == "؟" || c == "!" || c == "." }
        func isQuote(_ c: Character) -> Bool { c == "\"" || c == "'" || c == "”" || c == "’" || c == "»" }
        var out = ""
        var copied = text.startIndex
        var i = text.startIndex
        while i < text.endIndex {
            guard isMark(text[i]) else {
                i = text.index(after: i)
                continue
            }
            var j = text.index(after: i)
            while j < text.endIndex, isMark(text[j]) { j = text.index(after: j) }
            if j < text.endIndex, isQuote(text[j]) {
                out += text[copied..<i]
                copied = j
            }
            i = j
        }
        out += text[copied...]
        return out
    }

    /// `text.replacing(/[?؟!.\n]/, with: "·")`.
    public static func unmarked(_ text: Substring) -> String {
        String(text.map { c -> Character in c == "?" || c == "؟" || c == "!" || c == "." || c == "\n" ? "·" : c })
    }

    /// Whether the bytes of `word` occur in `haystack` (a UTF-8 text): for an ASCII word, whether
    /// the text holds it, as `String.contains` would say without bridging to NSString.
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ word: String) -> Bool {
        var word = word
        return word.withUTF8 { needle in
            guard let head = needle.first else { return true }
            guard needle.count <= haystack.count else { return false }
            var index = 0
            let lastStart = haystack.count - needle.count
            while index <= lastStart {
                if haystack[index] == head {
                    var offset = 1
                    while offset < needle.count && haystack[index + offset] == needle[offset] { offset += 1 }
                    if offset == needle.count { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// The matches of `[^.!?]+[.!?]+` in `text` (the sentences `ReinforcementStage.keySentence`
    /// weighs), found by one pass over its characters instead of the pattern's search from every
    /// position: a run of characters other than `.`, `!` and `?` with the marks that end it; a
    /// run the text ends in, unended, is none.
    public static func sentences(_ text: String) -> [Substring] {
        var found: [Substring] = []
        var start: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "." || character == "!" || character == "?" {
                if let from = start {
                    var end = text.index(after: index)
                    while end < text.endIndex, text[end] == "." || text[end] == "!" || text[end] == "?" { end = text.index(after: end) }
                    found.append(text[from..<end])
                    start = nil
                    index = end
                    continue
                }
            } else if start == nil {
                start = index
            }
            index = text.index(after: index)
        }
        return found
    }
}
