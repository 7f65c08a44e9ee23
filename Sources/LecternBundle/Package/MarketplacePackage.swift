import Crypto
import Foundation
import LecternCore
import LecternLLM

/// Ed25519 keys for signing packages. The private key file holds the 32-byte seed in base64
/// (mode 0600); the public key file the 32-byte key in base64 and its fingerprint.
public struct PackageKeys: Sendable {
    public static let privateHeader = "lectern-ed25519-private-key"
    public static let publicHeader = "lectern-ed25519-public-key"

    /// `SHA256:` and the first 16 bytes of the key's SHA-256 in hex pairs: what a person compares.
    public static func fingerprint(_ publicKey: Data) -> String {
        "SHA256:" + HexText.lowercase(SHA256.hash(data: publicKey).prefix(16), separator: ":")
    }

    /// Writes `NAME.key` and `NAME.pub` into `directory`; refuses to overwrite either.
    public static func generate(in directory: URL, name: String) throws -> (privateKey: URL, publicKey: URL, fingerprint: String) {
        let key = Curve25519.Signing.PrivateKey()
        let privateURL = directory.appendingPathComponent(name + ".key")
        let publicURL = directory.appendingPathComponent(name + ".pub")
        for url in [privateURL, publicURL] where FileManager.default.fileExists(atPath: url.path) {
            throw PackageError("\(url.path) already exists; keys are never overwritten (choose another --name or folder)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fingerprint = fingerprint(key.publicKey.rawRepresentation)
        let privateText = "\(privateHeader)\n\(key.rawRepresentation.base64EncodedString())\n"
        // Created with mode 0600 before any byte of the key is written.
        guard FileManager.default.createFile(atPath: privateURL.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw PackageError("cannot create \(privateURL.path)")
        }
        let handle = try FileHandle(forWritingTo: privateURL)
        try handle.write(contentsOf: Data(privateText.utf8))
        try handle.close()
        let publicText = "\(publicHeader)\n\(key.publicKey.rawRepresentation.base64EncodedString())\n\(fingerprint)\n"
        try Data(publicText.utf8).write(to: publicURL)
        return (privateURL, publicURL, fingerprint)
    }

    public static func readPrivateKey(_ url: URL) throws -> Curve25519.Signing.PrivateKey {
        let raw = try keyBytes(url, header: privateHeader, what: "private key")
        do { return try Curve25519.Signing.PrivateKey(rawRepresentation: raw) } catch {
            throw PackageError("\(url.path) is not an Ed25519 private key")
        }
    }

    public static func readPublicKey(_ url: URL) throws -> Curve25519.Signing.PublicKey {
        let raw = try keyBytes(url, header: publicHeader, what: "public key")
        do { return try Curve25519.Signing.PublicKey(rawRepresentation: raw) } catch {
            throw PackageError("\(url.path) is not an Ed25519 public key")
        }
    }

    private static func keyBytes(_ url: URL, header: String, what: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: url.path), data.count < 4_096, let text = String(data: data, encoding: .utf8) else {
            throw PackageError("cannot read the \(what) \(url.path)")
        }
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == header, lines.count >= 2, let raw = Data(base64Encoded: lines[1]), raw.count == 32 else {
            let hint = header == publicHeader && lines.first == privateHeader ? " (that is the private key: give the .pub file)" : ""
            throw PackageError("\(url.path) is not a Lectern \(what) file\(hint); make one with 'lectern keys generate'")
        }
        return raw
    }
}

public struct PackageError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// `signature.json`: who signed what. The signed message binds the bundle (its manifest's hash,
/// which holds every file's hash) to the listing (its hash, which holds the avatar's).
public struct PackageSignature: Codable, Sendable, Hashable {
    public var format: String = "lectern-package/1"
    public var algorithm: String = "ed25519"
    public var publicKey: String
    public var fingerprint: String
    public var manifestSHA256: String
    public var listingSHA256: String
    public var signature: String

    enum CodingKeys: String, CodingKey {
        case format, algorithm, publicKey = "public_key", fingerprint, manifestSHA256 = "manifest_sha256", listingSHA256 = "listing_sha256",
            signature
    }

    static func message(manifest: String, listing: String) -> Data {
        Data("lectern-package/1\nmanifest \(manifest)\nlisting \(listing)\n".utf8)
    }
}

/// Builds and checks `.lectern` packages: `bundle/…` (the verified bundle), `listing.json`,
/// `listing/avatar.*` and `signature.json`, in a deterministic stored ZIP.
public enum MarketplacePackage {
    /// The package of `bundle` with `listing`, signed with `key`: its file name and bytes.
    public static func build(
        bundle: URL, listing: Listing, avatar: (data: Data, fileExtension: String)?, key: Curve25519.Signing.PrivateKey, kinds: BundleKinds = .builtIn
    ) throws -> (fileName: String, data: Data) {
        let report = try BundleVerifier.verify(bundle)
        guard report.problems.isEmpty else {
            throw PackageError("the bundle does not verify; fix or regenerate it first:\n  " + report.problems.joined(separator: "\n  "))
        }
        var listing = listing
        var entries: [String: Data] = [:]
        for path in report.manifest.files.keys {
            entries["bundle/" + path] = try Data(contentsOf: bundle.appendingPathComponent(path))
        }
        let manifestData = try Data(contentsOf: bundle.appendingPathComponent(Manifest.fileName))
        entries["bundle/" + Manifest.fileName] = manifestData
        let facts = try facts(of: OpenBundle(url: bundle, manifest: report.manifest), kinds: kinds)
        listing.contents = facts.contents
        let unknown = listing.freeSamples.filter { !facts.samples.contains($0) }
        guard unknown.isEmpty else {
            throw PackageError(
                "free_samples names \(unknown.map { "'\($0)'" }.joined(separator: ", ")), which the bundle does not have; its "
                    + facts.samplesAre + " are " + facts.samples.sorted().prefix(12).joined(separator: ", "))
        }
        guard LanguageProfile.primarySubtag(listing.language) == LanguageProfile.primarySubtag(report.manifest.language) else {
            throw PackageError("the listing's language is \(listing.language) but the bundle is in \(report.manifest.language)")
        }
        if let avatar {
            let path = "listing/avatar.\(avatar.fileExtension)"
            entries[path] = avatar.data
            listing.author.avatar = Listing.Avatar(path: path, sha256: SHA256Digest.hex(avatar.data))
        }
        let listingData = try encoder.encode(listing)
        entries["listing.json"] = listingData
        let manifestHash = SHA256Digest.hex(manifestData)
        let listingHash = SHA256Digest.hex(listingData)
        let signatureBytes = try key.signature(for: PackageSignature.message(manifest: manifestHash, listing: listingHash))
        let signature = PackageSignature(
            publicKey: key.publicKey.rawRepresentation.base64EncodedString(), fingerprint: PackageKeys.fingerprint(key.publicKey.rawRepresentation),
            manifestSHA256: manifestHash, listingSHA256: listingHash, signature: signatureBytes.base64EncodedString())
        entries["signature.json"] = try encoder.encode(signature)
        return ("\(report.manifest.id)-\(report.manifest.version).lectern", StoredZip.write(entries))
    }

    public struct Verified: Sendable {
        public var manifest: Manifest
        public var listing: Listing
        public var fingerprint: String
        public var files: Int
    }

    /// Checks a package: the archive, every bundle file against the manifest, the listing and
    /// avatar against their hashes, and the signature against one of `trusted` public keys.
    public static func verify(_ data: Data, trusted: [Curve25519.Signing.PublicKey]) throws -> Verified {
        let entries: [String: Data]
        do { entries = try StoredZip.read(data) } catch { throw PackageError("it is not a readable package: \(error)") }
        guard let signatureData = entries["signature.json"] else { throw PackageError("it has no signature.json: it is not a signed Lectern package") }
        guard let listingData = entries["listing.json"] else { throw PackageError("it has no listing.json") }
        guard let manifestData = entries["bundle/" + Manifest.fileName] else { throw PackageError("it has no bundle/manifest.json") }
        let signature: PackageSignature
        let listing: Listing
        let manifest: Manifest
        do {
            signature = try JSONDecoder().decode(PackageSignature.self, from: signatureData)
            listing = try JSONDecoder().decode(Listing.self, from: listingData)
            manifest = try JSONDecoder().decode(Manifest.self, from: manifestData)
        } catch {
            throw PackageError("its signature.json, listing.json or manifest.json cannot be read: \(error.localizedDescription)")
        }
        guard signature.format == "lectern-package/1", signature.algorithm == "ed25519" else {
            throw PackageError("its signature is in a format this Lectern does not know (\(signature.format), \(signature.algorithm))")
        }
        // The signature first: nothing else in the package is believed before it holds.
        guard let keyBytes = Data(base64Encoded: signature.publicKey), let signer = try? Curve25519.Signing.PublicKey(rawRepresentation: keyBytes),
            let signatureBytes = Data(base64Encoded: signature.signature)
        else { throw PackageError("its signature.json is damaged") }
        let fingerprint = PackageKeys.fingerprint(signer.rawRepresentation)
        guard trusted.contains(where: { $0.rawRepresentation == signer.rawRepresentation }) else {
            throw PackageError("it is signed by key \(fingerprint), which is not a trusted key: it was re-signed by someone else, or give that key")
        }
        let manifestHash = SHA256Digest.hex(manifestData)
        let listingHash = SHA256Digest.hex(listingData)
        guard signer.isValidSignature(signatureBytes, for: PackageSignature.message(manifest: signature.manifestSHA256, listing: signature.listingSHA256)) else {
            throw PackageError("its signature does not match what it claims to sign: signature.json was altered")
        }
        guard manifestHash == signature.manifestSHA256 else {
            throw PackageError("bundle/manifest.json was changed after signing (the signature is for another manifest)")
        }
        guard listingHash == signature.listingSHA256 else { throw PackageError("listing.json was changed after signing (or swapped for another listing)") }
        // Every file: listed in the manifest with its hash, or the listing's avatar; nothing else.
        var problems: [String] = []
        for (name, data) in entries.sorted(by: { $0.key < $1.key }) {
            if name == "signature.json" || name == "listing.json" || name == "bundle/" + Manifest.fileName { continue }
            if let avatar = listing.author.avatar, name == avatar.path {
                if SHA256Digest.hex(data) != avatar.sha256 { problems.append("\(name): differs from the avatar the listing was signed with") }
                continue
            }
            guard name.hasPrefix("bundle/"), let entry = manifest.files[String(name.dropFirst("bundle/".count))] else {
                problems.append("\(name): not in the signed manifest")
                continue
            }
            if entry.bytes != data.count || entry.sha256 != SHA256Digest.hex(data) { problems.append("\(name): content differs from the signed manifest") }
        }
        for path in manifest.files.keys.sorted() where entries["bundle/" + path] == nil { problems.append("bundle/\(path): missing") }
        if let avatar = listing.author.avatar, entries[avatar.path] == nil { problems.append("\(avatar.path): missing") }
        guard problems.isEmpty else { throw PackageError(problems.joined(separator: "\n")) }
        return Verified(manifest: manifest, listing: listing, fingerprint: fingerprint, files: entries.count)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// What the bundle's kind says of its content, for the listing: `contents`, and what its
    /// free samples may name.
    static func facts(of bundle: OpenBundle, kinds: BundleKinds) throws -> ListingFacts {
        func listing<Kind: BundleKind>(_ kind: Kind.Type) throws -> ListingFacts { Kind.listing(try Kind.read(bundle)) }
        return try listing(try kinds.reader(for: bundle.manifest))
    }

    /// What a listing for the verified bundle at `bundle` is checked against (`ListingReader`).
    public static func listingFacts(of bundle: URL, manifest: Manifest, kinds: BundleKinds = .builtIn) throws -> ListingBundleFacts {
        let facts = try facts(of: OpenBundle(url: bundle, manifest: manifest), kinds: kinds)
        return ListingBundleFacts(language: manifest.language, samples: facts.samples, samplesAre: facts.samplesAre)
    }
}
