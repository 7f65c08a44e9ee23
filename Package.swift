// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Lectern",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "lectern", targets: ["lectern"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // System libraries (apt providers listed so SwiftPM can say what to install).
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLecternSystem", path: "Sources/CLecternSystem"),
        // SQLite, for the Anki export (an .apkg holds a collection database).
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CCmarkGFM", path: "Sources/CCmarkGFM",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),

        // The primary-subtag rule for language tags ("ar-EG" is "ar"), shared by every module.
        .target(name: "LecternLanguage"),
        // What is code, math and prose in Markdown: the one reading the renderer and the checks share.
        .target(name: "LecternMarkdown"),
        // TeX → MathML; depends only on the language-tag rule (spoken math in Arabic or English).
        .target(name: "TeXMath", dependencies: ["LecternLanguage"]),
        // A seedable generator for repeatable draws (mock faults, fuzzing, generated inputs).
        .target(name: "LecternRandom"),

        // Spec model, presets, content model, validators. Reads LecternLLM's credential policy so
        // that `validate` refuses what a provider would refuse, and TeXMath's command names so that
        // text checks know which TeX this project renders.
        .target(
            name: "LecternCore",
            dependencies: [
                "LecternLLM",
                "LecternLanguage",
                "LecternMarkdown",
                "TeXMath",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Providers, HTTP over libcurl, exchange cache.
        .target(
            name: "LecternLLM",
            dependencies: [
                "CCurl", "CLecternSystem", "LecternLanguage",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Markdown + math → sanitized XHTML + MathML.
        .target(name: "LecternRender", dependencies: ["TeXMath", "LecternLanguage", "LecternMarkdown", "CLibXML2", "CCmarkGFM"]),
        // Bundle writer/reader, manifest, verify.
        .target(
            name: "LecternBundle",
            dependencies: ["LecternCore", "LecternRender", "CLecternSystem", "CSQLite", .product(name: "Crypto", package: "swift-crypto")]),
        // Stages, work graph, engine.
        .target(
            name: "LecternPipeline",
            dependencies: ["LecternCore", "LecternLLM", "LecternBundle", "LecternRender"],
            resources: [.copy("Prompts")]),
        // The command-line interface as a library, so tests can drive it.
        .target(
            name: "LecternCLI",
            dependencies: [
                "LecternCore", "LecternLLM", "LecternPipeline", "LecternBundle", "LecternRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .executableTarget(name: "lectern", dependencies: ["LecternCLI"]),
        .executableTarget(name: "lectern-bench-http", dependencies: ["LecternLLM"], path: "benchmarks/HTTPBench"),
        .executableTarget(name: "lectern-bench-render", dependencies: ["LecternRender", "LecternRandom"], path: "benchmarks/RenderBench"),
        .executableTarget(name: "lectern-bench-tex", dependencies: ["TeXMath"], path: "benchmarks/TeXBench"),

        .executableTarget(name: "lectern-bench-engine", dependencies: ["LecternPipeline"], path: "benchmarks/EngineBench"),
        .executableTarget(name: "lectern-bench-checks", dependencies: ["LecternPipeline"], path: "benchmarks/CheckBench"),
        .executableTarget(name: "lectern-bench-gates", dependencies: ["LecternPipeline", "LecternRender"], path: "benchmarks/GatesBench"),
        .executableTarget(name: "lectern-bench-rubric", dependencies: ["LecternPipeline", "LecternLLM"], path: "benchmarks/RubricBench"),
        .executableTarget(name: "lectern-bench-template-judge", dependencies: ["LecternPipeline", "LecternLLM"], path: "benchmarks/TemplateJudgeBench"),
        .executableTarget(name: "lectern-bench-exam-plan", dependencies: ["LecternCore", "LecternRandom"], path: "benchmarks/ExamPlanBench"),
        .executableTarget(name: "lectern-bench-review", dependencies: ["LecternCore"], path: "benchmarks/ReviewBench"),
        // The mock LLM server (OpenAI and Anthropic on loopback, fault injection) and what uses it.
        .target(name: "LecternMockLLM", dependencies: ["LecternLLM", "LecternRandom", "CLecternSystem"]),
        .executableTarget(name: "lectern-mock-llm", dependencies: ["LecternMockLLM"], path: "benchmarks/MockLLM"),
        .executableTarget(name: "lectern-bench-orchestration", dependencies: ["LecternMockLLM"], path: "benchmarks/Orchestration"),
        .executableTarget(
            name: "lectern-bench-quotes", dependencies: ["LecternMockLLM", "LecternPipeline", "LecternRandom"], path: "benchmarks/QuotesBench"),
        .testTarget(name: "TeXMathTests", dependencies: ["TeXMath", "CLibXML2", "LecternRandom"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LecternCoreTests", dependencies: ["LecternCore", "LecternMarkdown", "LecternRandom", "TeXMath"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LecternLLMTests", dependencies: ["LecternLLM", "CLecternSystem"]),
        .testTarget(name: "LecternRenderTests", dependencies: ["LecternRender", "LecternMarkdown"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LecternBundleTests", dependencies: ["LecternBundle", "LecternCore", "LecternRandom"]),
        .testTarget(name: "LecternPipelineTests", dependencies: ["LecternPipeline", "LecternMarkdown", "LecternRender"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LecternCLITests", dependencies: ["LecternCLI", "LecternBundle", "LecternRender", "LecternLLM", "lectern"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "LecternReliabilityTests",
            dependencies: ["LecternMockLLM", "LecternPipeline", "LecternCore", "LecternLLM", "lectern"]),
    ],
    swiftLanguageModes: [.v6]
)
