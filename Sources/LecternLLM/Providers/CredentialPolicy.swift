import Foundation

/// Where an API key may be sent. A spec is a file people share, so its `base_url` is untrusted:
/// - a key read from a provider's default variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`) goes
///   only to that provider's own API host; a custom base URL gets a key only when the
///   configuration names the variable;
/// - a key never travels over plain http, except to this machine (loopback);
/// - redirects are never followed (``CurlHTTPClient`` leaves libcurl's default), so no header
///   reaches a host the configuration did not name.
public enum CredentialPolicy {
    /// Whether `host` (as `URL.host` gives it, brackets optional) is this machine: `localhost`
    /// and its subdomains, 127.0.0.0/8, ::1.
    public static func isLoopback(_ host: String?) -> Bool {
        guard var host = host?.lowercased(), !host.isEmpty else { return false }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            (1...3).contains(octet.count) && octet.allSatisfy { $0.isASCII && $0.isNumber } && (Int(octet) ?? 256) <= 255
        }
    }

    /// Why a key may not be sent to `url`, or nil when it may: plain http to a host that is not
    /// this machine.
    public static func plainTextProblem(sendingKeyTo url: URL) -> String? {
        guard url.scheme?.lowercased() != "https", !isLoopback(url.host) else { return nil }
        return "\(url.host ?? url.absoluteString) is reached over plain \(url.scheme ?? "http") and is not this machine, so anyone on "
            + "the way could read the key"
    }

    /// Why a key may not go where a configuration sends it, decided from the configuration alone
    /// (no environment), or nil: the variable ``keyVariable(configured:defaultVariable:ownHost:baseURL:)``
    /// picks would travel over plain http to another machine. The spec reader and the provider
    /// apply the same rule, so `validate` refuses what `run` would.
    public static func keyRouteProblem(configured: String?, defaultVariable: String?, ownHost: String?, baseURL: URL?) -> String? {
        guard let ownHost, let defaultVariable else { return nil }
        guard let variable = keyVariable(configured: configured, defaultVariable: defaultVariable, ownHost: ownHost, baseURL: baseURL)
        else { return nil }
        let endpoint = baseURL ?? URL(string: "https://\(ownHost)")!  // a host name from our own table
        guard let problem = plainTextProblem(sendingKeyTo: endpoint) else { return nil }
        return "the key in \(variable) to \(endpoint.host ?? endpoint.absoluteString), but \(problem)"
    }

    /// The variable a key is read from for a provider whose own API lives at `ownHost`: the
    /// configured one, else `defaultVariable` only when `baseURL` is that host (or unset); nil
    /// means no key is sent.
    public static func keyVariable(configured: String?, defaultVariable: String, ownHost: String, baseURL: URL?) -> String? {
        if let configured { return configured }
        guard let baseURL else { return defaultVariable }
        return baseURL.host?.lowercased() == ownHost ? defaultVariable : nil
    }
}
