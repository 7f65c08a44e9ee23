import Foundation
import LecternCore

/// What every kind's prompts say about the spec's common keys: the tone and the language.
public enum PromptText {
    /// Presets and free text combined into one instruction, in the order given.
    public static func tone(_ tone: ToneSpec, presets: PresetLibrary) -> String {
        var parts = tone.presets.compactMap { presets.tone[$0]?.instructions.replacingOccurrences(of: "\n", with: " ") }
        if let text = tone.text?.trimmed, !text.isEmpty { parts.append(text) }
        if parts.isEmpty { return "clear, friendly and direct" }
        return parts.joined(separator: " Also: ")
    }

    /// "Arabic (ar)": how prompts name the language of the content.
    public static func languageName(_ tag: String) -> String {
        let names = [
            "en": "English", "ar": "Arabic", "fr": "French", "de": "German", "es": "Spanish", "pt": "Portuguese", "it": "Italian", "nl": "Dutch",
            "tr": "Turkish", "hi": "Hindi", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "ru": "Russian",
        ]
        let base = LanguageProfile.primarySubtag(tag)
        return names[base].map { "\($0) (\(tag))" } ?? tag
    }
}
