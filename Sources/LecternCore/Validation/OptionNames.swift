/// The names a question's rules give its options in their messages, put in after the verdict.
///
/// A question's verdict does not depend on what its options are called: the pipeline names them
/// as the model wrote them (`correct_answer`, `wrong_answers[2]`), `lectern check` of a course.json
/// as "option 3". So the verdict is computed, and kept in `CheckMemo`, with stand-in names, and the
/// caller's names are put in afterwards: the stage's verdict on a question is then also the bank
/// lint's on the assembled course, which had been checking every question again under other memo
/// keys (a fifth of a cold 1,000-topic run's CPU, issue 49).
enum OptionNames {
    /// A stand-in name for each of `count` options: its place between two private-use characters,
    /// which no message holds otherwise. Nil when there are no options.
    static func placeholders(_ count: Int) -> [String]? {
        count == 0 ? nil : (0..<count).map { "\(open)\($0)\(close)" }
    }

    /// `issues` with each stand-in name replaced by the option's name: `labels` when there is one
    /// for each option, else "option 1", "option 2" … (as the rules name options without labels).
    static func named(_ issues: [ValidationIssue], labels: [String]?, count: Int) -> [ValidationIssue] {
        guard count > 0 else { return issues }
        let names = labels.flatMap { $0.count == count ? $0 : nil } ?? (0..<count).map { "option \($0 + 1)" }
        return issues.map { issue in
            guard issue.message.unicodeScalars.contains(open) || issue.kind.unicodeScalars.contains(open) else { return issue }
            var named = issue
            named.message = replaced(issue.message, names)
            named.kind = replaced(issue.kind, names)
            return named
        }
    }

    static let open: Unicode.Scalar = "\u{E0F0}"
    static let close: Unicode.Scalar = "\u{E0F1}"

    /// `text` with every well-formed stand-in (open, digits, close, naming an option) replaced.
    static func replaced(_ text: String, _ names: [String]) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            if scalars[i] == open {
                var j = i + 1
                var number = 0
                while j < scalars.count, j - i <= 4, (0x30...0x39).contains(scalars[j].value) {
                    number = number * 10 + Int(scalars[j].value - 0x30)
                    j += 1
                }
                if j > i + 1, j < scalars.count, scalars[j] == close, number < names.count {
                    out.append(contentsOf: names[number].unicodeScalars)
                    i = j + 1
                    continue
                }
            }
            out.append(scalars[i])
            i += 1
        }
        return String(out)
    }
}
