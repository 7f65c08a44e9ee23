/// The stylesheet that rendered documents link to; bundles ship it at their root.
public enum LecternStylesheet {
    /// The file name documents link to by default (`<link rel="stylesheet" href="lectern.css"/>`);
    /// a document in a subfolder is given a relative path to it (`../lectern.css`).
    public static let fileName = "lectern.css"

    /// The stylesheet: dedicated containers for code, math and quotes (FR-003), left-to-right
    /// code and math inside right-to-left documents, and each block's own direction there
    /// (a Latin run is not laid out as Arabic).
    public static let contents = """
        /* Lectern lecture stylesheet: code, math and quoted messages in their own containers. */
        body {
          font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Naskh Arabic", sans-serif;
          line-height: 1.6;
          max-width: 46rem;
          margin: 0 auto;
          padding: 1rem;
        }

        /* In a right-to-left document, each block takes the direction of its own first strong
           letter: a Latin sentence reads left to right with its punctuation where it belongs. */
        [dir="rtl"] :is(p, li, h1, h2, h3, h4, h5, h6, td, th, dt, dd, figcaption) {
          unicode-bidi: plaintext;
        }

        .lectern-code {
          direction: ltr;
          text-align: left;
          margin: 1rem 0;
          border: 1px solid #d0d7de;
          border-inline-start: 4px solid #0969da;
          border-radius: 6px;
          background: #f6f8fa;
          overflow-x: auto;
        }
        .lectern-code pre {
          margin: 0;
          padding: 0.75rem 1rem;
        }
        .lectern-code code, code {
          font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace;
          font-size: 0.9em;
        }
        :not(pre) > code {
          padding: 0.1em 0.3em;
          border-radius: 4px;
          background: #eff1f3;
        }

        .lectern-math {
          direction: ltr;
          margin: 1rem 0;
          padding: 0.75rem 1rem;
          border: 1px solid #e3d9f5;
          border-inline-start: 4px solid #8250df;
          border-radius: 6px;
          background: #faf7ff;
          overflow-x: auto;
          text-align: center;
        }
        span.lectern-math-display {
          display: inline-block;
          margin: 0;
          padding: 0.25rem 0.5rem;
        }
        math {
          direction: ltr;
        }

        .lectern-quote {
          margin: 1rem 0;
          padding: 0.5rem 1rem;
          border-inline-start: 4px solid #bf8700;
          border-radius: 0 6px 6px 0;
          background: #fff8e5;
          color: #3b2f00;
        }
        .lectern-quote > :first-child { margin-top: 0; }
        .lectern-quote > :last-child { margin-bottom: 0; }

        table {
          border-collapse: collapse;
          margin: 1rem 0;
        }
        th, td {
          border: 1px solid #d0d7de;
          padding: 0.3rem 0.6rem;
        }
        img {
          max-width: 100%;
        }

        """
}
