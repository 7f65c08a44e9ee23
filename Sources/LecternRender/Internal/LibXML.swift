internal import CLibXML2

/// libxml2: a document parsed as a tree (the SVG check, the diagnosis of a failed render) and the
/// parser's errors.
enum LibXML {
    /// `xmlInitParser` must run once before libxml2 is used from several threads.
    static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// No network, no entity substitution, no DTD loading, quiet, CDATA as text.
    static let parseOptions = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOCDATA.rawValue)

    /// Why a document did not parse.
    struct Failure: Error {
        var message: String
        var line: Int
        var column: Int
    }

    /// Parses `bytes` as XML and hands the document to `body`; throws the parser's first error.
    static func withDocument<R>(_ bytes: [UInt8], _ body: (xmlDocPtr) throws -> R) throws -> R {
        _ = initialized
        guard bytes.count < Int(Int32.max), let ctxt = xmlNewParserCtxt() else {
            throw Failure(message: "libxml2 could not start a parser", line: 0, column: 0)
        }
        defer { xmlFreeParserCtxt(ctxt) }
        let doc = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { chars in
                xmlCtxtReadMemory(ctxt, chars.baseAddress, Int32(chars.count), nil, "UTF-8", parseOptions)
            }
        }
        guard let doc, ctxt.pointee.wellFormed != 0 else {
            if let doc { xmlFreeDoc(doc) }
            throw failure(of: ctxt)
        }
        defer { xmlFreeDoc(doc) }
        return try body(doc)
    }

    /// The parser's error.
    static func failure(of ctxt: xmlParserCtxtPtr) -> Failure {
        let error = ctxt.pointee.lastError
        var message = error.message.map { String(cString: $0) } ?? "not well-formed"
        while message.last == "\n" { message.removeLast() }
        return Failure(message: message, line: Int(error.line), column: Int(error.int2))
    }

    /// Whether `bytes` is well-formed XML (`nil`) or the reason it is not.
    static func check(_ bytes: [UInt8]) -> Failure? {
        do {
            try withDocument(bytes) { _ in }
            return nil
        } catch let failure as Failure {
            return failure
        } catch {
            return Failure(message: "\(error)", line: 0, column: 0)
        }
    }
}
