import ArgumentParser
import Crypto
import Foundation
import LecternBundle
import LecternCore
import LecternPipeline

/// `lectern keys generate`: an Ed25519 key pair for signing packages.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Make the Ed25519 key pair that signs marketplace packages.", subcommands: [Generate.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write NAME.key (the private key, mode 0600) and NAME.pub (the public key and its fingerprint) into a folder.",
            discussion:
                "Keep the .key file private: it never goes into a bundle, a package, a log or a cache. Give the .pub file (or its fingerprint) to those who verify your packages. Existing files are never overwritten."
        )

        @Option(name: .long, help: ArgumentHelp("The folder for the two files (created if missing).", valueName: "DIR"))
        var output: String

        @Option(name: .long, help: ArgumentHelp("The files' base name.", valueName: "NAME"))
        var name = "lectern-signing"

        func validate() throws {
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
                throw ValidationError("--name is a plain file name such as publisher-2026, without '/'")
            }
        }

        func run() throws {
            do {
                let keys = try PackageKeys.generate(in: URL(fileURLWithPath: output, isDirectory: true), name: name)
                Console.out("private key: \(keys.privateKey.path) (mode 0600: keep it to yourself)")
                Console.out("public key:  \(keys.publicKey.path)")
                Console.out("fingerprint: \(keys.fingerprint)")
            } catch let error as PackageError {
                Console.error("error: \(error)")
                throw LecternExit.usage
            }
        }
    }
}

/// `lectern package BUNDLE --listing LISTING.yaml --key KEY`: a signed marketplace package.
struct PackageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package",
        abstract: "Write a signed marketplace package (<id>-<version>.lectern) of a verified bundle and its listing.",
        discussion: """
            The package is a ZIP holding the bundle (bundle/…), listing.json (the listing as checked, \
            with the content counts Lectern takes from the bundle), the author's avatar and \
            signature.json: an Ed25519 signature over the manifest's hash (which holds every file's) \
            and the listing's. The same inputs give the same bytes. The listing's keys are in \
            docs/packages.md; pipelines/examples/python-basics-listing.yaml is an example. Check a \
            package with 'lectern verify FILE.lectern --public-key KEY.pub'.
            """)

    @Argument(help: ArgumentHelp("The bundle directory, e.g. output/python-basics/1.0.0.", valueName: "BUNDLE"))
    var bundle: String

    @Option(name: .long, help: ArgumentHelp("The listing YAML file.", valueName: "LISTING.yaml"))
    var listing: String

    @Option(name: .long, help: ArgumentHelp("The private key from 'lectern keys generate'.", valueName: "KEY"))
    var key: String

    @Option(name: .long, help: ArgumentHelp("Where to write the package (default: <id>-<version>.lectern here).", valueName: "FILE"))
    var output: String?

    @Flag(
        name: .customLong("require-review"),
        help: "Refuse a bundle with any item a person has not approved or edited (its review.json), naming them; exit 1.")
    var requireReview = false

    func run() throws {
        if requireReview { try Self.requireReviewed(URL(fileURLWithPath: bundle, isDirectory: true), name: bundle) }
        // Everything wrong is said at once: the bundle's problems, then every problem of the
        // listing at its line, including what it says that the bundle contradicts.
        let bundleURL = URL(fileURLWithPath: bundle, isDirectory: true)
        var facts: ListingBundleFacts?
        var refused = false
        do {
            let report = try BundleVerifier.verify(bundleURL)
            if report.problems.isEmpty {
                facts = try MarketplacePackage.listingFacts(of: bundleURL, manifest: report.manifest)
            } else {
                Console.error("error: the bundle does not verify; fix or regenerate it first:\n  " + report.problems.joined(separator: "\n  "))
                refused = true
            }
        } catch {
            Console.error("error: \(error)")
            refused = true
        }
        var checked: (listing: Listing, avatar: (data: Data, fileExtension: String)?)?
        do {
            checked = try ListingReader.read(URL(fileURLWithPath: listing), displayName: listing, bundle: facts)
        } catch let error as SpecError {
            Console.error(error.description)
            refused = true
        }
        guard !refused, let checked else { throw LecternExit.usage }
        let (signingKey, package) = try reportingUsageErrors {
            let signingKey = try PackageKeys.readPrivateKey(URL(fileURLWithPath: key))
            return (
                signingKey,
                try MarketplacePackage.build(bundle: bundleURL, listing: checked.listing, avatar: checked.avatar, key: signingKey)
            )
        }
        let destination = URL(fileURLWithPath: output ?? package.fileName)
        try writeOutput(package.data, to: destination)
        Console.out("wrote \(destination.path) (\(package.data.count) bytes), signed by \(PackageKeys.fingerprint(signingKey.publicKey.rawRepresentation))")
    }
}

extension PackageCommand {
    /// Refuses (exit 1) a bundle whose `review.json` holds an item not approved or edited, or
    /// which has none.
    static func requireReviewed(_ bundle: URL, name: String) throws {
        guard let data = FileManager.default.contents(atPath: bundle.appendingPathComponent(ReviewSeal.fileName).path),
            let seal = try? ReviewSeal.read(data)
        else {
            Console.error("error: --require-review: \(name) has no readable \(ReviewSeal.fileName); run the job again to write one, then review it")
            throw LecternExit.itemsFailed
        }
        let unreviewed = seal.items.filter { $0.state != .approved && $0.state != .edited }
        guard unreviewed.isEmpty else {
            Console.error(
                "error: --require-review: \(unreviewed.count) of \(seal.items.count) items are not approved or edited: "
                    + unreviewed.prefix(20).map(\.id).joined(separator: ", ") + (unreviewed.count > 20 ? ", …" : ""))
            Console.error("  review them with `lectern review \(name) --spec SPEC`, run the job again, and package the new bundle")
            throw LecternExit.itemsFailed
        }
    }
}

/// `body`, with a package, export or bundle error reported as a usage error (exit 2).
func reportingUsageErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as PackageError {
        Console.error("error: \(error)")
        throw LecternExit.usage
    } catch let error as BundleError {
        Console.error("error: \(error)")
        throw LecternExit.usage
    }
}

/// Writes `data` to `destination` in one step, or reports why not (exit 5).
func writeOutput(_ data: Data, to destination: URL) throws {
    do {
        try data.write(to: destination, options: .atomic)
    } catch {
        Console.error("error: cannot write \(destination.path): \(error.localizedDescription)")
        throw LecternExit.runtime
    }
}

extension VerifyCommand {
    /// Verifies one `.lectern` package against the trusted keys; false when it fails.
    static func verifyPackage(_ path: String, publicKeys: [String], trustedKeys: String?) throws -> Bool {
        var keys: [Curve25519.Signing.PublicKey] = []
        var keyFiles = publicKeys.map { URL(fileURLWithPath: $0) }
        if let trustedKeys {
            let folder = URL(fileURLWithPath: trustedKeys, isDirectory: true)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            keyFiles += names.filter { $0.hasSuffix(".pub") }.sorted().map { folder.appendingPathComponent($0) }
            if names.filter({ $0.hasSuffix(".pub") }).isEmpty {
                Console.error("error: \(trustedKeys) holds no .pub files")
                throw LecternExit.usage
            }
        }
        guard !keyFiles.isEmpty else {
            Console.error("error: a package is verified against a public key: give --public-key KEY.pub or --trusted-keys DIR")
            throw LecternExit.usage
        }
        do {
            keys = try keyFiles.map(PackageKeys.readPublicKey)
        } catch let error as PackageError {
            Console.error("error: \(error)")
            throw LecternExit.usage
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            Console.error("\(path): cannot be read")
            return false
        }
        do {
            let verified = try MarketplacePackage.verify(data, trusted: keys)
            Console.out(
                "\(path): ok (\(verified.files) files, \(verified.manifest.id) \(verified.manifest.version), “\(verified.listing.title)”, signed by \(verified.fingerprint))"
            )
            return true
        } catch let error as PackageError {
            Console.error("\(path): refused: " + error.description.replacingOccurrences(of: "\n", with: "\n  "))
            return false
        }
    }
}
