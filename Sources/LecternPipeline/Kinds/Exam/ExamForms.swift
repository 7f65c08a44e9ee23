import Foundation
import LecternCore

/// Full exams assembled from the bank without a model call: for each section of a form, its
/// count of items taken round-robin over the section's categories (a passage's questions stay
/// together), each form starting further along so forms share as few items as the bank allows.
public enum ExamForms {
    /// A run of items presented together: one item, or a passage's questions.
    struct Unit {
        var items: [ExamItem]
    }

    public static func assemble(_ exam: ExamSpec, bank: [ExamItem], passages: [Passage]) -> [ExamForm] {
        exam.forms.enumerated().map { index, spec in
            let sections = spec.sections.map { part -> ExamFormSection in
                let section = exam.sections.first { $0.id == part.section }
                let units = self.units(of: part.section, in: bank, categories: section?.categories.map(\.id) ?? [])
                let chosen = take(part.count, from: units, start: index * part.count)
                return ExamFormSection(section: part.section, title: section?.title ?? part.section, items: chosen.map(\.id))
            }
            return ExamForm(id: spec.id, title: spec.title, durationMinutes: spec.durationMinutes, sections: sections)
        }
    }

    /// The section's units, interleaved by category in blueprint order.
    static func units(of section: String, in bank: [ExamItem], categories: [String]) -> [Unit] {
        var perCategory: [[Unit]] = []
        for category in categories {
            let items = bank.filter { $0.section == section && $0.category == category }.sorted { $0.id < $1.id }
            var units: [Unit] = []
            for item in items {
                if let passage = item.passage, let last = units.last, last.items.first?.passage == passage {
                    units[units.count - 1].items.append(item)
                } else {
                    units.append(Unit(items: [item]))
                }
            }
            perCategory.append(units)
        }
        var interleaved: [Unit] = []
        let longest = perCategory.map(\.count).max() ?? 0
        for i in 0..<longest {
            for units in perCategory where i < units.count { interleaved.append(units[i]) }
        }
        return interleaved
    }

    /// `count` items from `units`, walking once around from `start`; a unit that would overshoot
    /// is passed over, and if the count is still not met the first passed-over unit is cut.
    static func take(_ count: Int, from units: [Unit], start: Int) -> [ExamItem] {
        guard !units.isEmpty else { return [] }
        var chosen: [ExamItem] = []
        var skipped: [Unit] = []
        let total = units.reduce(0) { $0 + $1.items.count }
        let offset = total == 0 ? 0 : units.indices.first { index in units[..<index].reduce(0) { $0 + $1.items.count } >= start % total } ?? 0
        for step in 0..<units.count where chosen.count < count {
            let unit = units[(offset + step) % units.count]
            if chosen.count + unit.items.count <= count {
                chosen += unit.items
            } else {
                skipped.append(unit)
            }
        }
        for unit in skipped where chosen.count < count {
            chosen += unit.items.prefix(count - chosen.count)
        }
        return chosen
    }
}

/// The exam's Markdown documents: passages and forms (rendered to XHTML like lectures).
public enum ExamDocuments {
    struct Labels {
        var passage: String
        var question: String
        var minutes: String
        var duration: String
        var answerKey: String
        var letters: [String]
        var readPassage: String
    }

    static func labels(_ language: String) -> Labels {
        if LanguageProfile.isArabic(language) {
            return Labels(
                passage: "النص", question: "السؤال", minutes: "دقيقة", duration: "مدة الاختبار", answerKey: "مفتاح الإجابات",
                letters: ["أ", "ب", "ج", "د", "هـ", "و"], readPassage: "اقرأ النص ثم أجب عن الأسئلة التالية")
        }
        return Labels(
            passage: "Passage", question: "Question", minutes: "minutes", duration: "Duration", answerKey: "Answer key",
            letters: ["A", "B", "C", "D", "E", "F"], readPassage: "Read the passage, then answer the questions that follow")
    }

    /// "Passage 2" / "النص 2".
    public static func passageTitle(_ set: ExamWork.PassageSet, language: String) -> String {
        "\(labels(language).passage) \(set.number)"
    }

    public static func passageMarkdown(_ set: ExamWork.PassageSet, language: String) -> String {
        "# \(passageTitle(set, language: language))\n\n\(set.passage.text.trimmed)\n"
    }

    /// Alt text inside `![…]`: brackets and backslashes escaped, on one line.
    static func markdownText(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "[", "]", "\\", "*", "_", "`": out += "\\" + String(c)
            case "\n", "\r": out += " "
            default: out.append(c)
            }
        }
        return out
    }

    /// "45 minutes"; in Arabic with the noun's number agreement: دقيقة واحدة، دقيقتان، ٣ دقائق، ١١ دقيقة.
    static func minutes(_ count: Int, language: String, written: (Int) -> String) -> String {
        guard LanguageProfile.isArabic(language) else {
            return "\(written(count)) \(count == 1 && LanguageProfile.isEnglish(language) ? "minute" : labels(language).minutes)"
        }
        switch count {
        case 1: return "دقيقة واحدة"
        case 2: return "دقيقتان"
        case 3...10: return "\(written(count)) دقائق"
        default: return "\(written(count)) دقيقة"
        }
    }

    /// The form as a candidate reads it, each question numbered with its section and difficulty
    /// (Tafawoq FR-030: "السؤال 12 - اللفظي"), and the answer key at the end.
    public static func formMarkdown(_ form: ExamForm, bank: [ExamItem], passages: [Passage], exam: ExamSpec, language: String) -> String {
        let l = labels(language)
        let items = Dictionary(bank.map { ($0.id, $0) }) { a, _ in a }
        let texts = Dictionary(passages.map { ($0.id, $0.text) }) { a, _ in a }
        // Numbers in the exam's digits, like the items' (Tafawoq: one system throughout).
        let digits = exam.digits ?? .default(language: language)
        func written(_ n: Int) -> String { digits.apply(to: String(n)) }
        var out = "# \(form.title)\n\n\(l.duration): \(minutes(form.durationMinutes, language: language, written: written))\n"
        var number = 0
        var key: [String] = []
        for section in form.sections {
            out += "\n## \(section.title)\n"
            var shownPassage: String?
            for id in section.items {
                guard let item = items[id] else { continue }
                number += 1
                if let passage = item.passage, passage != shownPassage, let text = texts[passage] {
                    shownPassage = passage
                    out += "\n*\(l.readPassage):*\n\n" + text.trimmed.split(separator: "\n", omittingEmptySubsequences: false).map { "> " + $0 }.joined(separator: "\n") + "\n"
                }
                out += "\n### \(l.question) \(written(number)) - \(section.title) · \(item.difficultyLabel)\n\n\(item.prompt)\n\n"
                if let figure = item.figure {
                    // Forms live in forms/, figures in figures/.
                    out += "![\(markdownText(figure.alt))](../\(figure.path))\n\n"
                }
                for (index, option) in item.options.enumerated() {
                    let letter = index < l.letters.count ? l.letters[index] : "\(index + 1)"
                    out += "\(letter). \(option.text)  \n"
                    if option.correct { key.append("\(written(number)). \(letter)") }
                }
            }
        }
        out += "\n## \(l.answerKey)\n\n" + key.joined(separator: "  \n") + "\n"
        return out
    }
}
