import Crypto
import Foundation
import LecternCore

/// An Anki deck package (.apkg, the format every Anki client imports: File › Import): a note
/// per question with its prompt, lettered options, the answer with its feedback, the explanation
/// and where it comes from; a subdeck per subject and topic (an exam's section and category);
/// tags for the question's kind, reinforcement level and topic id. A course's flashcards join
/// their topic's deck as notes of two more types: "Lectern flashcard" (Front, Back) for terms and
/// questions, and "Lectern cloze" (Anki's cloze type: the sentence with its span as `{{c1::…}}`).
///
/// The package is a `StoredZip` of `collection.anki2` (a collection database in schema 11, the
/// one every Anki version reads) and an empty `media` map. Math is written as Anki renders it
/// with its built-in MathJax: each MathML formula of the rendered text becomes `\(…\)` (or
/// `\[…\]` for display math) around its TeX annotation. Note guids and ids are derived from the
/// bundle id and item id, so importing a regenerated bundle updates the same notes instead of
/// adding copies; timestamps are one fixed date (a bundle has no clock time), so the same bundle
/// gives the same bytes.
public enum AnkiExporter: BundleExporter {
    public static let format = "anki"
    public static let fileExtension = "apkg"
    public static let summary = "an Anki deck (.apkg): a note per question, a subdeck per topic, math as Anki's MathJax"

    /// 2026-01-01T00:00:00Z: every `mod` and the collection's creation time.
    static let epochSeconds: Int64 = 1_767_225_600
    static let fieldNames = ["Prompt", "Options", "Answer", "Explanation", "Source", "ID"]

    /// The note types: questions, flashcards, clozes.
    enum NoteType: CaseIterable {
        case question, flashcard, cloze
    }

    struct Note {
        var type: NoteType = .question
        var id: Int64
        var guid: String
        var deck: String
        var tags: [String]
        var fields: [String]
    }

    /// A course topic's flashcards, where their notes go.
    struct TopicCards {
        var subject: String
        var topicID: String
        var topic: String
        var cards: [Flashcard]
    }

    static func flashcards(of course: Course) -> [TopicCards] {
        course.subjects.flatMap { subject in
            subject.topics.map { TopicCards(subject: subject.title, topicID: $0.id, topic: $0.title, cards: $0.flashcards ?? []) }
        }
    }

    /// A note a question (each in its subject's and topic's deck) and a note a course's flashcard.
    static func export(questions: [BundleQuestion], flashcards: [TopicCards], bundle: OpenBundle) throws -> Data {
        let manifest = bundle.manifest
        let language = manifest.language
        let root = deckComponent(manifest.title)
        var notes: [Note] = []
        var usedIDs: Set<Int64> = []
        /// A stable id from the bundle and item ids, made unique within the deck.
        func noteID(_ itemID: String) -> Int64 {
            var id = stableID(manifest.id + "/" + itemID)
            while !usedIDs.insert(id).inserted { id += 1 }
            return id
        }
        for q in questions {
            var optionList = ""
            var answer = ""
            if !q.options.isEmpty {
                optionList = "<ol type=\"A\" class=\"lectern-options\">"
                for (index, option) in q.options.enumerated() {
                    let text = BundleContent.inline(BundleContent.fragment(option.text, language: language))
                    optionList += "<li>" + text + "</li>"
                    if option.correct {
                        let letter = index < 26 ? String(UnicodeScalar(UInt8(65 + index))) : String(index + 1)
                        answer += "<p><b>" + letter + ".</b> " + text + "</p>"
                        answer += BundleContent.fragment(option.feedback, language: language)
                    }
                }
                optionList += "</ol>"
            } else {
                answer = BundleContent.fragment(q.referenceAnswer ?? "", language: language)
            }
            let source = [q.subject, q.topic].filter { !$0.isEmpty }.map(BundleContent.xmlEscaped).joined(separator: " › ")
            let values = [
                BundleContent.prompt(q, language: language), optionList, answer,
                BundleContent.fragment(q.explanation, language: language), source, BundleContent.xmlEscaped(q.id),
            ].map { BundleContent.mathJax(Exporters.textCharacters($0)).replacingOccurrences(of: "\u{1F}", with: " ") }
            let deck = ([root] + (q.subject.isEmpty ? [] : [deckComponent(q.subject)]) + [deckComponent(q.topic)]).joined(separator: "::")
            var tags = ["lectern::" + q.role, "lectern::topic::" + tag(q.topicID)]
            if let level = q.level { tags.append("lectern::level-\(level)") }
            notes.append(Note(id: noteID(q.id), guid: guid(manifest.id + "/" + q.id), deck: deck, tags: tags, fields: values))
        }
        notes += flashcardNotes(flashcards, bundleID: manifest.id, root: root, language: language, noteID: noteID)
        guard !notes.isEmpty else { throw PackageError("the bundle has no questions or flashcards to put in an Anki deck") }
        return try package(notes: notes, manifest: manifest)
    }

    /// A flashcard deck: a "Lectern flashcard" note a card, in one deck named after it.
    static func exportDeck(cards: [(front: String, back: String)], bundle: OpenBundle) throws -> Data {
        let manifest = bundle.manifest
        let cards = CardsTSVExporter.cleaned(cards)
        guard !cards.isEmpty else { throw PackageError("the deck has no cards to put in an Anki deck") }
        let deck = deckComponent(manifest.title)
        var usedIDs: Set<Int64> = []
        let notes = cards.enumerated().map { index, card -> Note in
            let itemID = "cards/" + String(format: "c%03d", index + 1)
            var id = stableID(manifest.id + "/" + itemID)
            while !usedIDs.insert(id).inserted { id += 1 }
            let fields = [card.front, card.back].map { BundleContent.xmlEscaped($0).replacingOccurrences(of: "\n", with: "<br>") }
            return Note(
                type: .flashcard, id: id, guid: guid("flashcards/" + manifest.id + "/" + card.front), deck: deck, tags: ["lectern::flashcard"],
                fields: fields + [BundleContent.xmlEscaped(manifest.title), BundleContent.xmlEscaped(itemID)])
        }
        return try package(notes: notes, manifest: manifest)
    }

    /// A course's flashcards, in course order, each in its topic's deck.
    static func flashcardNotes(_ topics: [TopicCards], bundleID: String, root: String, language: String, noteID: (String) -> Int64) -> [Note] {
        var notes: [Note] = []
        for topic in topics {
            let deck = [root, deckComponent(topic.subject), deckComponent(topic.topic)].joined(separator: "::")
            let source = [topic.subject, topic.topic].filter { !$0.isEmpty }.map(BundleContent.xmlEscaped).joined(separator: " › ")
            for card in topic.cards {
                let id = card.id
                let kind = card.kind.rawValue
                let back = card.back
                func text(_ markdown: String) -> String {
                    BundleContent.mathJax(Exporters.textCharacters(BundleContent.inline(BundleContent.fragment(markdown, language: language))))
                        .replacingOccurrences(of: "\u{1F}", with: " ")
                }
                var note = Note(
                    id: noteID("flashcards/" + id), guid: guid(bundleID + "/flashcards/" + id), deck: deck,
                    tags: ["lectern::flashcard", "lectern::flashcard::" + tag(kind), "lectern::topic::" + tag(topic.topicID)], fields: [])
                if card.kind == .cloze, let span = card.cloze, let range = FlashcardRules.wholeWordRanges(of: span, in: back).first {
                    // The span as Anki's cloze deletion; Markdown leaves the braces alone.
                    let marked = back.replacingCharacters(in: range, with: "{{c1::" + back[range] + "}}")
                    note.type = .cloze
                    note.fields = [text(marked), source, BundleContent.xmlEscaped(id)]
                } else {
                    note.type = .flashcard
                    note.fields = [text(card.front), text(back), source, BundleContent.xmlEscaped(id)]
                }
                notes.append(note)
            }
        }
        return notes
    }

    // MARK: The collection

    static func package(notes: [Note], manifest: Manifest) throws -> Data {
        let rtl = LanguageDirection.isRightToLeft(manifest.language)
        let suffix = rtl ? "-rtl-v1" : "-v1"
        func modelID(_ type: NoteType) -> Int64 {
            switch type {
            case .question: return stableID("lectern-question" + suffix)
            case .flashcard: return stableID("lectern-flashcard" + suffix)
            case .cloze: return stableID("lectern-cloze" + suffix)
            }
        }
        // Decks: every level of every path, in order of first use.
        var deckIDs: [String: Int64] = [:]
        var deckOrder: [String] = []
        for note in notes {
            let parts = note.deck.components(separatedBy: "::")
            for depth in 1...parts.count {
                let name = parts[..<depth].joined(separator: "::")
                if deckIDs[name] == nil {
                    deckIDs[name] = stableID("deck/" + name)
                    deckOrder.append(name)
                }
            }
        }
        var decks: [String: Any] = ["1": deck(id: 1, name: "Default")]
        for name in deckOrder { decks[String(deckIDs[name]!)] = deck(id: deckIDs[name]!, name: name) }
        var models: [String: Any] = [:]
        for type in NoteType.allCases where notes.contains(where: { $0.type == type }) {
            models[String(modelID(type))] = model(type, id: modelID(type), rtl: rtl, language: manifest.language)
        }
        let configuration: [String: Any] = [
            "activeDecks": [1], "curDeck": 1, "newSpread": 0, "collapseTime": 1200, "timeLim": 0, "estTimes": true, "dueCounts": true,
            "curModel": modelID(notes.first?.type ?? .question), "nextPos": notes.count + 1, "sortType": "noteFld", "sortBackwards": false, "addToCur": true, "schedVer": 2,
        ]

        let db = try SQLiteFile()
        try db.execute(schema)
        try db.insert(
            "INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, '{}')",
            rows: [
                [
                    .integer(epochSeconds), .integer(epochSeconds * 1000), .integer(epochSeconds * 1000), .text(json(configuration)),
                    .text(json(models)), .text(json(decks)), .text(json(["1": deckConfiguration])),
                ]
            ])
        try db.insert(
            "INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')",
            rows: notes.map { note in
                let sortField = plainText(note.fields[0])
                return [
                    .integer(note.id), .text(note.guid), .integer(modelID(note.type)), .integer(epochSeconds), .text(" " + note.tags.joined(separator: " ") + " "),
                    .text(note.fields.joined(separator: "\u{1F}")), .text(sortField), .integer(checksum(sortField)),
                ]
            })
        // One new card a note (template 0), due in deck order.
        try db.insert(
            "INSERT INTO cards VALUES (?, ?, ?, 0, ?, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')",
            rows: notes.enumerated().map { index, note in
                [.integer(note.id), .integer(note.id), .integer(deckIDs[note.deck]!), .integer(epochSeconds), .integer(Int64(index + 1))]
            })
        let collection = try db.finish()
        return StoredZip.write(["collection.anki2": collection, "media": Data("{}".utf8)])
    }

    /// A note type, styled for phones and desktops alike: a question has six fields and one card
    /// (prompt and options; then the answer, the explanation and the source); a flashcard Front,
    /// Back, Source and ID; a cloze (Anki's type 1) Text, Source and ID.
    static func model(_ type: NoteType, id: Int64, rtl: Bool, language: String) -> [String: Any] {
        let direction = rtl ? " dir=\"rtl\"" : ""
        let lang = " lang=\"" + BundleContent.xmlEscaped(language) + "\""
        func fieldList(_ names: [String]) -> [[String: Any]] {
            names.enumerated().map { index, name in
                ["name": name, "ord": index, "sticky": false, "rtl": rtl, "font": "Arial", "size": 20, "media": [], "description": ""]
            }
        }
        func noteType(_ name: String, kind: Int, names: [String], template: String, front: String, back: String, req: [Any]) -> [String: Any] {
            [
                "id": id, "name": rtl ? name + " (right to left)" : name, "type": kind, "mod": epochSeconds, "usn": -1, "sortf": 0,
                "did": 1, "flds": fieldList(names), "tags": [], "vers": [],
                "tmpls": [["name": template, "ord": 0, "qfmt": front, "afmt": back, "bqfmt": "", "bafmt": "", "did": NSNull()]],
                "css": css, "latexPre": latexPre, "latexPost": "\\end{document}", "latexsvg": false, "req": req,
            ]
        }
        switch type {
        case .question: break
        case .flashcard:
            return noteType(
                "Lectern flashcard", kind: 0, names: ["Front", "Back", "Source", "ID"], template: "Card",
                front: "<div class=\"lectern\"\(lang)\(direction)><div class=\"prompt\">{{Front}}</div></div>",
                back: "{{FrontSide}}\n\n<hr id=answer>\n\n<div class=\"lectern\"\(lang)\(direction)><div class=\"answer\">{{Back}}</div><div class=\"source\">{{Source}}</div></div>",
                req: [[0, "any", [0]]])
        case .cloze:
            return noteType(
                "Lectern cloze", kind: 1, names: ["Text", "Source", "ID"], template: "Cloze",
                front: "<div class=\"lectern\"\(lang)\(direction)><div class=\"prompt\">{{cloze:Text}}</div></div>",
                back: "<div class=\"lectern\"\(lang)\(direction)><div class=\"prompt\">{{cloze:Text}}</div><div class=\"source\">{{Source}}</div></div>",
                req: [])
        }
        let front = "<div class=\"lectern\"\(lang)\(direction)><div class=\"prompt\">{{Prompt}}</div>{{#Options}}<div class=\"options\">{{Options}}</div>{{/Options}}</div>"
        let back =
            "{{FrontSide}}\n\n<hr id=answer>\n\n<div class=\"lectern\"\(lang)\(direction)><div class=\"answer\">{{Answer}}</div>"
            + "{{#Explanation}}<div class=\"explanation\">{{Explanation}}</div>{{/Explanation}}<div class=\"source\">{{Source}}</div></div>"
        let fields: [[String: Any]] = fieldNames.enumerated().map { index, name in
            ["name": name, "ord": index, "sticky": false, "rtl": rtl, "font": "Arial", "size": 20, "media": [], "description": ""]
        }
        return [
            "id": id, "name": rtl ? "Lectern question (right to left)" : "Lectern question", "type": 0, "mod": epochSeconds, "usn": -1, "sortf": 0,
            "did": 1, "flds": fields, "tags": [], "vers": [],
            "tmpls": [["name": "Question", "ord": 0, "qfmt": front, "afmt": back, "bqfmt": "", "bafmt": "", "did": NSNull()]],
            "css": css, "latexPre": latexPre, "latexPost": "\\end{document}", "latexsvg": false, "req": [[0, "any", [0]]],
        ]
    }

    static func deck(id: Int64, name: String) -> [String: Any] {
        [
            "id": id, "name": name, "mod": epochSeconds, "usn": -1, "desc": "", "dyn": 0, "conf": 1, "collapsed": false, "browserCollapsed": false,
            "extendNew": 0, "extendRev": 0, "newToday": [0, 0], "revToday": [0, 0], "lrnToday": [0, 0], "timeToday": [0, 0],
        ]
    }

    /// Anki's stock deck options (schema 11): new cards 20 a day, reviews 200.
    static var deckConfiguration: [String: Any] {
        [
            "id": 1, "name": "Default", "mod": 0, "usn": 0, "maxTaken": 60, "autoplay": true, "timer": 0, "replayq": true, "dyn": false,
            "new": ["bury": false, "delays": [1.0, 10.0], "initialFactor": 2500, "ints": [1, 4, 0], "order": 1, "perDay": 20],
            "rev": ["bury": false, "ease4": 1.3, "ivlFct": 1.0, "maxIvl": 36500, "perDay": 200, "hardFactor": 1.2],
            "lapse": ["delays": [10.0], "leechAction": 1, "leechFails": 8, "minInt": 1, "mult": 0.0],
        ]
    }

    static let css = """
        .card { font-family: system-ui, sans-serif; font-size: 20px; line-height: 1.5; text-align: start; color: black; background-color: white; }
        .nightMode .card, .card.nightMode { color: #eee; background-color: #222; }
        .lectern { max-width: 40em; margin: 0 auto; }
        .lectern .options li { margin: 0.25em 0; }
        .lectern .explanation { margin-top: 1em; font-size: 0.9em; }
        .lectern .source { margin-top: 1em; font-size: 0.75em; opacity: 0.7; }
        .lectern pre { text-align: left; direction: ltr; overflow-x: auto; }
        """

    static let latexPre = """
        \\documentclass[12pt]{article}
        \\special{papersize=3in,5in}
        \\usepackage[utf8]{inputenc}
        \\usepackage{amssymb,amsmath}
        \\pagestyle{empty}
        \\setlength{\\parindent}{0in}
        \\begin{document}

        """

    static let schema = """
        CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver integer not null,
          dty integer not null, usn integer not null, ls integer not null, conf text not null, models text not null, decks text not null,
          dconf text not null, tags text not null);
        CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, usn integer not null,
          tags text not null, flds text not null, sfld integer not null, csum integer not null, flags integer not null, data text not null);
        CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, mod integer not null,
          usn integer not null, type integer not null, queue integer not null, due integer not null, ivl integer not null,
          factor integer not null, reps integer not null, lapses integer not null, left integer not null, odue integer not null,
          odid integer not null, flags integer not null, data text not null);
        CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null,
          ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
        CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
        CREATE INDEX ix_notes_usn ON notes (usn);
        CREATE INDEX ix_cards_usn ON cards (usn);
        CREATE INDEX ix_revlog_usn ON revlog (usn);
        CREATE INDEX ix_cards_nid ON cards (nid);
        CREATE INDEX ix_cards_sched ON cards (did, queue, due);
        CREATE INDEX ix_revlog_cid ON revlog (cid);
        CREATE INDEX ix_notes_csum ON notes (csum);
        """

    // MARK: Text

    /// The text Anki sorts and checks duplicates by: tags removed, entities decoded.
    static func plainText(_ html: String) -> String {
        var text = ""
        var inTag = false
        for c in html {
            if c == "<" { inTag = true } else if c == ">" { inTag = false } else if !inTag { text.append(c) }
        }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Anki's field checksum: the first 8 hex digits of the SHA-1 of the sort field.
    static func checksum(_ text: String) -> Int64 {
        Int64(Insecure.SHA1.hash(data: Data(text.utf8)).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    /// A positive id below 2^53 (JSON numbers stay exact), stable for `key`.
    static func stableID(_ key: String) -> Int64 {
        let digest = SHA256.hash(data: Data(key.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int64(value % (1 << 52)) + (1 << 40)
    }

    /// A note guid (Anki's are ten printable characters): base-62 digits of a hash of `key`.
    static func guid(_ key: String) -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var value = SHA256.hash(data: Data(("guid/" + key).utf8)).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        var out = ""
        for _ in 0..<10 {
            out.append(alphabet[Int(value % 62)])
            value /= 62
        }
        return out
    }

    /// A deck name's component: Anki splits names at `::`, so a title's `::` becomes `:`.
    static func deckComponent(_ title: String) -> String {
        let cleaned = title.replacingOccurrences(of: "::", with: ":").replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty ? "Untitled" : cleaned
    }

    /// A tag: Anki separates tags with spaces.
    static func tag(_ text: String) -> String {
        let cleaned = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: "_")
        return cleaned.isEmpty ? "none" : cleaned
    }

    static func json(_ object: Any) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }
}
