import Foundation
import Yams

/// A marketplace listing (Learnable's Lecture Shop, seed 000): what a buyer sees of a package
/// before buying it. Written by the publisher as YAML (`pipelines/examples/*listing*.yaml`),
/// checked with file:line:column errors like a spec, and stored in the package as `listing.json`
/// with the content counts Lectern takes from the bundle.
public struct Listing: Codable, Sendable, Hashable {
    public struct Author: Codable, Sendable, Hashable {
        public var name: String
        public var bio: String?
        public var website: String?
        /// In the package: `listing/avatar.png` or `.jpg`, with its SHA-256.
        public var avatar: Avatar?
    }

    public struct Avatar: Codable, Sendable, Hashable {
        public var path: String
        public var sha256: String

        public init(path: String, sha256: String) {
            self.path = path
            self.sha256 = sha256
        }
    }

    /// A price in the currency's minor units (cents, halalas): 1999 USD is $19.99.
    public struct Price: Codable, Sendable, Hashable {
        public var amount: Int
        public var currency: String
    }

    /// What the bundle holds, counted by Lectern (not written by the publisher).
    public struct Contents: Codable, Sendable, Hashable {
        public var kind: String
        /// Course: subjects, lectures, questions; exam: sections, items, forms.
        public var counts: [String: Int]
        /// Course: the lectures' reading time; exam: the forms' durations.
        public var totalMinutes: Int

        public init(kind: String, counts: [String: Int], totalMinutes: Int) {
            self.kind = kind
            self.counts = counts
            self.totalMinutes = totalMinutes
        }

        enum CodingKeys: String, CodingKey { case kind, counts, totalMinutes = "total_minutes" }
    }

    public static let levels = ["beginner", "intermediate", "advanced", "all-levels"]

    public var title: String
    public var subtitle: String?
    public var description: String
    public var language: String
    public var level: String
    public var tags: [String]
    public var author: Author
    public var licence: String
    /// nil when the package is free.
    public var price: Price?
    /// Ids of the lectures (course: topic ids such as `s01-t01`) or forms (exam) a buyer may see
    /// before buying.
    public var freeSamples: [String]
    public var contents: Contents?

    enum CodingKeys: String, CodingKey {
        case title, subtitle, description, language, level, tags, author, licence, price, freeSamples = "free_samples", contents
    }
}

/// What a listing is checked against when the bundle it goes with is known (`lectern package`):
/// the bundle's language and the ids its free samples may name.
public struct ListingBundleFacts: Sendable {
    public var language: String
    /// Topic ids (a course) or form ids (an exam).
    public var samples: Set<String>
    /// What the samples are, for messages: "lectures" or "forms".
    public var samplesAre: String

    public init(language: String, samples: Set<String>, samplesAre: String) {
        self.language = language
        self.samples = samples
        self.samplesAre = samplesAre
    }
}

/// Reads and checks a listing YAML file; every problem is reported with its place.
public enum ListingReader {
    /// Avatars larger than this are refused (a profile picture, not a photograph's original).
    public static let maxAvatarBytes = 512 * 1024

    /// The listing and the avatar file it names (relative to the listing), checked; with `bundle`,
    /// also against the bundle it goes with (its language, its free samples). Every problem is
    /// reported at once, each at its line.
    public static func read(
        _ url: URL, displayName: String? = nil, bundle: ListingBundleFacts? = nil
    ) throws -> (
        listing: Listing, avatar: (data: Data, fileExtension: String)?
    ) {
        let source = try YAMLSource.read(url, displayName: displayName)
        let root = try source.compose()
        let reader = SpecReader(file: source.file)
        let known = ["title", "subtitle", "description", "language", "level", "tags", "author", "licence", "license", "price", "free", "free_samples"]
        guard let top = reader.mapping(root, path: "", known: known) else {
            try reader.throwIfErrors()
            throw SpecError(SpecDiagnostic(file: source.file, message: "the listing is empty"))
        }
        let title = top.string("title", required: true, maxLength: 120, hint: "the name buyers see, 3 to 120 characters")
        if let title, title.count < 3 { reader.report("'title' is too short (at least 3 characters)", at: top.node("title")) }
        let subtitle = top.string("subtitle", maxLength: 160)
        let description = top.string("description", required: true, maxLength: 5_000, hint: "what a buyer learns, in 40 to 5,000 characters")?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if let description, description.count < 40 {
            reader.report("'description' is too short (\(description.count) characters; at least 40)", at: top.node("description"))
        }
        let language = top.string("language", required: true, maxLength: 35)
        if let language, language.range(of: #"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"#, options: .regularExpression) == nil {
            reader.report("'language' must be a BCP 47 code such as en or ar-SA, not '\(language)'", at: top.node("language"))
        }
        let level = top.string("level", required: true, maxLength: 40, hint: "one of " + Listing.levels.joined(separator: ", "))
        if let level, !Listing.levels.contains(level) {
            reader.report("'level' must be one of \(Listing.levels.joined(separator: ", ")), not '\(level)'", at: top.node("level"))
        }
        let tags = top.stringList("tags", maxCount: 10, maxLength: 32) ?? []
        if top.has("tags") {
            if tags.isEmpty { reader.report("'tags' needs at least one tag", at: top.node("tags")) }
            var seen = Set<String>()
            for tag in tags {
                if tag.trimmingCharacters(in: .whitespaces).count < 2 { reader.report("the tag '\(tag)' is too short (at least 2 characters)", at: top.node("tags")) }
                if !seen.insert(tag.lowercased()).inserted { reader.report("the tag '\(tag)' is given twice", at: top.node("tags")) }
            }
        } else {
            reader.report("missing required key 'tags'", at: top.node, hint: "one to ten words buyers search for")
        }
        if top.has("licence") && top.has("license") { reader.report("give 'licence' once (not also 'license')", at: top.node("license")) }
        let licenceKey = top.has("license") && !top.has("licence") ? "license" : "licence"
        let licence = top.string(licenceKey, required: true, maxLength: 100, hint: "an SPDX id such as CC-BY-4.0, or 'proprietary'")

        // Author.
        var author: Listing.Author?
        var avatar: (data: Data, fileExtension: String)?
        if let a = top.mapping("author", known: ["name", "bio", "website", "avatar"]) {
            let name = a.string("name", required: true, maxLength: 80)
            if let name, name.count < 2 { reader.report("'author.name' is too short", at: a.node("name")) }
            let bio = a.string("bio", maxLength: 1_000)
            let website = a.string("website", maxLength: 200)
            if let website, URL(string: website)?.scheme != "https" || URL(string: website)?.host == nil {
                reader.report("'author.website' must be an https:// address, not '\(website)'", at: a.node("website"))
            }
            if let path = a.string("avatar", maxLength: 500) {
                let file = url.deletingLastPathComponent().appendingPathComponent(path)
                if let data = FileManager.default.contents(atPath: file.path) {
                    if data.count > maxAvatarBytes {
                        reader.report("'author.avatar' is \(data.count / 1024) KiB; at most \(maxAvatarBytes / 1024) KiB", at: a.node("avatar"))
                    } else if let type = imageType(data) {
                        avatar = (data, type)
                    } else {
                        reader.report("'author.avatar' (\(path)) is not a PNG or JPEG image", at: a.node("avatar"))
                    }
                } else {
                    reader.report("'author.avatar' names \(path), which cannot be read (relative to the listing's folder)", at: a.node("avatar"))
                }
            }
            a.finish()
            if let name { author = Listing.Author(name: name, bio: bio, website: website, avatar: nil) }
        } else if !top.has("author") {
            reader.report("missing required key 'author'", at: top.node, hint: "author: {name: …, bio: …, website: https://…, avatar: avatar.png}")
        }

        // Price: `free: true`, or `price: {amount, currency}` in minor units.
        var price: Listing.Price?
        let free = top.bool("free")
        if let p = top.mapping("price", known: ["amount", "currency"]) {
            var amount: Int?
            if let node = p.node("amount"), node.int == nil, let value = node.float, value.isFinite, value > 0, let written = node.scalar?.string {
                // 4.99 is a price in major units; the listing takes minor units (499).
                let minor = Int((value * 100).rounded())
                reader.report(
                    "'price.amount' is \(written), but a price is a whole number of the currency's minor units (cents, halalas)", at: node,
                    hint: "write \(minor) for \(written) in a currency of 100 minor units (USD, EUR, SAR)")
            } else {
                amount = p.int("amount", range: 1...1_000_000_000)
            }
            if p.node("amount") == nil { reader.report("missing required key 'price.amount'", at: p.node, hint: "in minor units: 1999 for 19.99") }
            let currency = p.string("currency", required: true, maxLength: 3, hint: "an ISO 4217 code such as USD, EUR, SAR")
            if let currency, currency.range(of: "^[A-Z]{3}$", options: .regularExpression) == nil {
                reader.report("'price.currency' must be an ISO 4217 code of three capital letters (USD, SAR), not '\(currency)'", at: p.node("currency"))
            }
            p.finish()
            if let amount, let currency { price = Listing.Price(amount: amount, currency: currency) }
            if free == true { reader.report("a listing with a price cannot also be 'free: true'", at: top.node("free")) }
        } else if free != true {
            reader.report("the listing needs a price or 'free: true'", at: top.node, hint: "price: {amount: 1999, currency: USD} (minor units), or free: true")
        }
        let samples = top.stringList("free_samples", maxCount: 50, maxLength: 80) ?? []
        if let bundle {
            if let language, LanguageProfile.primarySubtag(language) != LanguageProfile.primarySubtag(bundle.language) {
                reader.report(
                    "'language' is \(language) but the bundle is in \(bundle.language)", at: top.node("language"),
                    hint: "write the bundle's language, \(bundle.language)")
            }
            let unknown = samples.filter { !bundle.samples.contains($0) }
            if !unknown.isEmpty {
                reader.report(
                    "free_samples names \(unknown.map { "'\($0)'" }.joined(separator: ", ")), which the bundle does not have", at: top.node("free_samples"),
                    hint: "its \(bundle.samplesAre) are " + bundle.samples.sorted().prefix(12).joined(separator: ", "))
            }
        }
        top.finish()
        try reader.throwIfErrors()
        guard let title, let description, let language, let level, let licence, let author else {
            throw SpecError(SpecDiagnostic(file: source.file, message: "the listing is incomplete"))
        }
        let listing = Listing(
            title: title, subtitle: subtitle, description: description, language: language, level: level, tags: tags, author: author,
            licence: licence, price: price, freeSamples: samples, contents: nil)
        return (listing, avatar)
    }

    /// "png" or "jpg" by the file's signature, else nil.
    static func imageType(_ data: Data) -> String? {
        let bytes = [UInt8](data.prefix(8))
        if bytes == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return "png" }
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return "jpg" }
        return nil
    }
}
