/// How a symbol command renders.
enum SymbolClass: Sendable {
    /// `<mi>`, italic by MathML's rule when it is a single letter.
    case identifier
    /// `<mi mathvariant="normal">` (capital Greek and other upright letters).
    case uprightIdentifier
    /// `<mo>` with the operator dictionary's spacing (binary operators, relations, arrows, punctuation).
    case operatorSymbol
    /// Fences: bare in TeX they never grow, so they get `stretchy="false"`.
    case opening, closing, fence
    /// ∑-like: limits under/over in display style.
    case largeOperator
    /// ∫-like: limits beside.
    case integral
    /// \sin-like function names.
    case function
    /// \lim-like operator names with limits under/over in display style.
    case namedOperator
}

struct SymbolInfo: Sendable {
    var text: String
    var symbolClass: SymbolClass
}

/// The symbol tables, parsed once from compact text (a Swift dictionary literal of this size is
/// slow to type-check). Line format: `name class text`, where text may be `U+XXXX[,XXXX]`.
/// Classes: i identifier, I upright identifier, o operator, O opening, C closing, F fence,
/// L large operator, N integral, f function, m named operator.
enum Symbols {
    static let table: [String: SymbolInfo] = parse(mathSymbolData)
    static let textTable: [String: String] = parseText(textSymbolData)

    /// MediaWiki texvc's alternative names, which KaTeX and MathJax accept too.
    static let texvcAliases: Set<String> = [
        "lang", "rang", "darr", "dArr", "Darr", "uarr", "uArr", "Uarr", "harr", "hArr", "Harr", "larr", "lArr", "Larr",
        "rarr", "rArr", "Rarr", "lrarr", "lrArr", "Lrarr", "N", "R", "Z", "natnums", "reals", "Reals", "cnums", "Complex",
        "alef", "alefsym", "clubs", "diamonds", "hearts", "spades", "Dagger", "empty", "exist", "image", "real", "infin",
        "sdot", "bull", "sect", "part", "thetasym", "sub", "sube", "supe", "plim", "minuso",
    ]

    /// Negations for `\not`: what `\not\X` or `\not X` becomes.
    static let negations: [String: String] = [
        "=": "≠", "<": "≮", ">": "≯", "in": "∉", "ni": "∌", "equiv": "≢", "sim": "≁", "simeq": "≄",
        "approx": "≉", "cong": "≇", "leq": "≰", "le": "≰", "geq": "≱", "ge": "≱", "subset": "⊄",
        "supset": "⊅", "subseteq": "⊈", "supseteq": "⊉", "mid": "∤", "parallel": "∦", "prec": "⊀",
        "succ": "⊁", "preceq": "⋠", "succeq": "⋡", "vdash": "⊬", "vDash": "⊭", "Vdash": "⊮",
        "VDash": "⊯", "exists": "∄", "asymp": "≭", "leftarrow": "↚", "rightarrow": "↛",
        "leftrightarrow": "↮", "Leftarrow": "⇍", "Rightarrow": "⇏", "Leftrightarrow": "⇎",
        "sqsubseteq": "⋢", "sqsupseteq": "⋣", "lessgtr": "≸", "gtrless": "≹", "lesssim": "≴",
        "gtrsim": "≵", "triangleleft": "⋪", "triangleright": "⋫", "trianglelefteq": "⋬",
        "trianglerighteq": "⋭", "ll": "≪̸", "gg": "≫̸", "|": "∦", "to": "↛", "gets": "↚",
    ]

    private static func decode(_ field: Substring) -> String {
        guard field.hasPrefix("U+") else { return String(field) }
        var out = String.UnicodeScalarView()
        for part in field.dropFirst(2).split(separator: ",") {
            if let value = UInt32(part, radix: 16), let scalar = Unicode.Scalar(value) { out.append(scalar) }
        }
        return String(out)
    }

    private static func parse(_ data: String) -> [String: SymbolInfo] {
        var result: [String: SymbolInfo] = [:]
        result.reserveCapacity(900)
        for line in data.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3 else { continue }
            let symbolClass: SymbolClass
            switch fields[1] {
            case "i": symbolClass = .identifier
            case "I": symbolClass = .uprightIdentifier
            case "O": symbolClass = .opening
            case "C": symbolClass = .closing
            case "F": symbolClass = .fence
            case "L": symbolClass = .largeOperator
            case "N": symbolClass = .integral
            case "f": symbolClass = .function
            case "m": symbolClass = .namedOperator
            default: symbolClass = .operatorSymbol
            }
            // Names with inner spaces ("lim sup") use '~' in the data.
            let text = decode(fields[2]).replacingTilde()
            result[String(fields[0])] = SymbolInfo(text: text, symbolClass: symbolClass)
        }
        return result
    }

    private static func parseText(_ data: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in data.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2 else { continue }
            result[String(fields[0])] = decode(fields[1])
        }
        return result
    }
}

extension String {
    fileprivate func replacingTilde() -> String {
        guard unicodeScalars.contains("~"), unicodeScalars.count > 1 else { return self }
        var out = String.UnicodeScalarView()
        for s in unicodeScalars { out.append(s == "~" ? "\u{2006}" : s) }
        return String(out)
    }
}

// A table as data, a symbol a line from the first column: the formatter would indent it.
// swift-format-ignore
private let mathSymbolData = """
alpha i α
beta i β
gamma i γ
delta i δ
epsilon i ϵ
varepsilon i ε
zeta i ζ
eta i η
theta i θ
vartheta i ϑ
iota i ι
kappa i κ
varkappa i ϰ
lambda i λ
mu i μ
nu i ν
xi i ξ
omicron i ο
pi i π
varpi i ϖ
rho i ρ
varrho i ϱ
sigma i σ
varsigma i ς
tau i τ
upsilon i υ
phi i ϕ
varphi i φ
chi i χ
psi i ψ
omega i ω
digamma i ϝ
Alpha I Α
Beta I Β
Gamma I Γ
Delta I Δ
Epsilon I Ε
Zeta I Ζ
Eta I Η
Theta I Θ
Iota I Ι
Kappa I Κ
Lambda I Λ
Mu I Μ
Nu I Ν
Xi I Ξ
Omicron I Ο
Pi I Π
Rho I Ρ
Sigma I Σ
Tau I Τ
Upsilon I Υ
Phi I Φ
Chi I Χ
Psi I Ψ
Omega I Ω
Digamma I Ϝ
varGamma i Γ
varDelta i Δ
varTheta i Θ
varLambda i Λ
varXi i Ξ
varPi i Π
varSigma i Σ
varUpsilon i Υ
varPhi i Φ
varPsi i Ψ
varOmega i Ω
aleph i ℵ
beth i ℶ
gimel i ℷ
daleth i ℸ
hbar i ℏ
hslash i ℏ
ell i ℓ
wp i ℘
weierp i ℘
Re i ℜ
Im i ℑ
imath i ı
jmath i ȷ
partial i ∂
nabla I ∇
infty i ∞
emptyset i ∅
varnothing i ∅
complement i ∁
eth i ð
Finv i Ⅎ
Game i ⅁
Bbbk i 𝕜
mho i ℧
prime i ′
backprime i ‵
angle i ∠
measuredangle i ∡
sphericalangle i ∢
top i ⊤
bot i ⊥
triangle i △
triangledown i ▽
blacktriangle i ▲
blacktriangledown i ▼
square i □
Box i □
blacksquare i ■
lozenge i ◊
Diamond i ◊
blacklozenge i ⧫
diamondsuit i ♢
heartsuit i ♡
clubsuit i ♣
spadesuit i ♠
varclubsuit i ♧
vardiamondsuit i ♦
varheartsuit i ♥
varspadesuit i ♤
flat i ♭
natural i ♮
sharp i ♯
checkmark i ✓
maltese i ✠
circledS i Ⓢ
circledR i ®
bigstar i ★
diagup i ╱
diagdown i ╲
degree i °
dag i †
ddag i ‡
S i §
P i ¶
copyright i ©
pounds i £
mathsterling i £
yen i ¥
euro i €
% i %
& o &
slash o /
$ i $
# i #
_ i _
surd o √
forall o ∀
exists o ∃
nexists o ∄
neg o ¬
lnot o ¬
pm o ±
plusmn o ±
mp o ∓
times o ×
div o ÷
cdot o ⋅
centerdot o ⋅
cdotp o ⋅
ldotp o .
ast o ∗
star o ⋆
circ o ∘
bullet o ∙
setminus o ∖
smallsetminus o ∖
cap o ∩
cup o ∪
uplus o ⊎
sqcap o ⊓
sqcup o ⊔
vee o ∨
lor o ∨
wedge o ∧
land o ∧
oplus o ⊕
ominus o ⊖
otimes o ⊗
oslash o ⊘
odot o ⊙
bigcirc o ◯
dagger o †
ddagger o ‡
amalg o ⨿
wr o ≀
diamond o ⋄
triangleleft o ◃
triangleright o ▹
bigtriangleup o △
bigtriangledown o ▽
lhd o ⊲
rhd o ⊳
unlhd o ⊴
unrhd o ⊵
dotplus o ∔
ltimes o ⋉
rtimes o ⋊
leftthreetimes o ⋋
rightthreetimes o ⋌
curlywedge o ⋏
curlyvee o ⋎
barwedge o ⌅
veebar o ⊻
doublebarwedge o ⩞
boxplus o ⊞
boxminus o ⊟
boxtimes o ⊠
boxdot o ⊡
circledast o ⊛
circledcirc o ⊚
circleddash o ⊝
divideontimes o ⋇
intercal o ⊺
Cap o ⋒
doublecap o ⋒
Cup o ⋓
doublecup o ⋓
And o &
colon o :
lt o <
gt o >
leq o ≤
le o ≤
geq o ≥
ge o ≥
neq o ≠
ne o ≠
equiv o ≡
approx o ≈
approxeq o ≊
sim o ∼
simeq o ≃
cong o ≅
asymp o ≍
propto o ∝
varpropto o ∝
ll o ≪
gg o ≫
lll o ⋘
llless o ⋘
ggg o ⋙
gggtr o ⋙
subset o ⊂
supset o ⊃
subseteq o ⊆
supseteq o ⊇
subseteqq o ⫅
supseteqq o ⫆
sqsubset o ⊏
sqsupset o ⊐
sqsubseteq o ⊑
sqsupseteq o ⊒
Subset o ⋐
Supset o ⋑
in o ∈
isin o ∈
ni o ∋
owns o ∋
notin o ∉
prec o ≺
succ o ≻
preceq o ⪯
succeq o ⪰
preccurlyeq o ≼
succcurlyeq o ≽
precsim o ≾
succsim o ≿
precapprox o ⪷
succapprox o ⪸
curlyeqprec o ⋞
curlyeqsucc o ⋟
vdash o ⊢
dashv o ⊣
vDash o ⊨
Vdash o ⊩
Vvdash o ⊪
VDash o ⊫
models o ⊧
perp o ⊥
mid o ∣
parallel o ∥
shortmid o ∣
shortparallel o ∥
smile o ⌣
frown o ⌢
smallsmile o ⌣
smallfrown o ⌢
bowtie o ⋈
Join o ⋈
doteq o ≐
Doteq o ≑
doteqdot o ≑
fallingdotseq o ≒
risingdotseq o ≓
eqcirc o ≖
circeq o ≗
triangleq o ≜
bumpeq o ≏
Bumpeq o ≎
backsim o ∽
backsimeq o ⋍
thicksim o ∼
thickapprox o ≈
eqsim o ≂
lesssim o ≲
gtrsim o ≳
lessapprox o ⪅
gtrapprox o ⪆
lessgtr o ≶
gtrless o ≷
lesseqgtr o ⋚
gtreqless o ⋛
lesseqqgtr o ⪋
gtreqqless o ⪌
leqq o ≦
geqq o ≧
leqslant o ⩽
geqslant o ⩾
eqslantless o ⪕
eqslantgtr o ⪖
lessdot o ⋖
gtrdot o ⋗
between o ≬
pitchfork o ⋔
therefore o ∴
because o ∵
backepsilon o ϶
vartriangleleft o ⊲
vartriangleright o ⊳
vartriangle o △
trianglelefteq o ⊴
trianglerighteq o ⊵
blacktriangleleft o ◀
blacktriangleright o ▶
multimap o ⊸
coloneqq o ≔
coloneq o ≔
Coloneqq o ⩴
eqqcolon o ≕
eqcolon o ≕
Colon o ∷
dblcolon o ∷
nleq o ≰
ngeq o ≱
nless o ≮
ngtr o ≯
nleqslant o U+2A7D,0338
ngeqslant o U+2A7E,0338
nleqq o U+2266,0338
ngeqq o U+2267,0338
lneq o ⪇
gneq o ⪈
lneqq o ≨
gneqq o ≩
lvertneqq o U+2268,FE00
gvertneqq o U+2269,FE00
lnsim o ⋦
gnsim o ⋧
lnapprox o ⪉
gnapprox o ⪊
nprec o ⊀
nsucc o ⊁
npreceq o ⋠
nsucceq o ⋡
precneqq o ⪵
succneqq o ⪶
precnsim o ⋨
succnsim o ⋩
precnapprox o ⪹
succnapprox o ⪺
nsim o ≁
ncong o ≇
nmid o ∤
nshortmid o ∤
nparallel o ∦
nshortparallel o ∦
nvdash o ⊬
nvDash o ⊭
nVdash o ⊮
nVDash o ⊯
ntriangleleft o ⋪
ntriangleright o ⋫
ntrianglelefteq o ⋬
ntrianglerighteq o ⋭
nsubseteq o ⊈
nsupseteq o ⊉
nsubseteqq o U+2AC5,0338
nsupseteqq o U+2AC6,0338
subsetneq o ⊊
supsetneq o ⊋
subsetneqq o ⫋
supsetneqq o ⫌
varsubsetneq o U+228A,FE00
varsupsetneq o U+228B,FE00
varsubsetneqq o U+2ACB,FE00
varsupsetneqq o U+2ACC,FE00
leftarrow o ←
gets o ←
rightarrow o →
to o →
leftrightarrow o ↔
Leftarrow o ⇐
Rightarrow o ⇒
Leftrightarrow o ⇔
longleftarrow o ⟵
longrightarrow o ⟶
longleftrightarrow o ⟷
Longleftarrow o ⟸
Longrightarrow o ⟹
Longleftrightarrow o ⟺
iff o ⟺
implies o ⟹
impliedby o ⟸
mapsto o ↦
longmapsto o ⟼
mapsfrom o ↤
hookleftarrow o ↩
hookrightarrow o ↪
leftharpoonup o ↼
leftharpoondown o ↽
rightharpoonup o ⇀
rightharpoondown o ⇁
rightleftharpoons o ⇌
leftrightharpoons o ⇋
nearrow o ↗
searrow o ↘
swarrow o ↙
nwarrow o ↖
leadsto o ⇝
rightsquigarrow o ⇝
leftrightsquigarrow o ↭
twoheadleftarrow o ↞
twoheadrightarrow o ↠
leftarrowtail o ↢
rightarrowtail o ↣
looparrowleft o ↫
looparrowright o ↬
curvearrowleft o ↶
curvearrowright o ↷
circlearrowleft o ↺
circlearrowright o ↻
leftleftarrows o ⇇
rightrightarrows o ⇉
leftrightarrows o ⇆
rightleftarrows o ⇄
Lleftarrow o ⇚
Rrightarrow o ⇛
Lsh o ↰
Rsh o ↱
dashleftarrow o ⇠
dashrightarrow o ⇢
nleftarrow o ↚
nrightarrow o ↛
nleftrightarrow o ↮
nLeftarrow o ⇍
nRightarrow o ⇏
nLeftrightarrow o ⇎
upharpoonleft F ↿
upharpoonright F ↾
restriction F ↾
downharpoonleft F ⇃
downharpoonright F ⇂
upuparrows F ⇈
downdownarrows F ⇊
uparrow F ↑
downarrow F ↓
updownarrow F ↕
Uparrow F ⇑
Downarrow F ⇓
Updownarrow F ⇕
{ O {
} C }
lbrace O {
rbrace C }
lbrack O [
rbrack C ]
lparen O (
rparen C )
langle O ⟨
rangle C ⟩
lfloor O ⌊
rfloor C ⌋
lceil O ⌈
rceil C ⌉
lvert O |
rvert C |
lVert O ‖
rVert C ‖
vert F |
Vert F ‖
| F ‖
lgroup O ⟮
sub o ⊂
sube o ⊆
supe o ⊇
minuso o ⦵
vcentcolon o :
ordinarycolon i :
lang O ⟨
rang C ⟩
darr F ↓
dArr F ⇓
Darr F ⇓
uarr F ↑
uArr F ⇑
Uarr F ⇑
harr o ↔
hArr o ⇔
Harr o ⇔
larr o ←
lArr o ⇐
Larr o ⇐
rarr o →
rArr o ⇒
Rarr o ⇒
lrarr o ↔
lrArr o ⇔
Lrarr o ⇔
N i ℕ
R i ℝ
Z i ℤ
natnums i ℕ
reals i ℝ
Reals i ℝ
cnums i ℂ
Complex i ℂ
alef i ℵ
alefsym i ℵ
clubs i ♣
diamonds i ♢
hearts i ♡
spades i ♠
Dagger o ‡
empty i ∅
exist o ∃
image i ℑ
real i ℜ
infin i ∞
sdot o ⋅
bull o ∙
sect i §
part i ∂
thetasym i ϑ
Arrowvert F ‖
arrowvert F ⏐
bracevert F ⎪
rgroup C ⟯
lmoustache O ⎰
rmoustache C ⎱
ulcorner O ⌜
urcorner C ⌝
llcorner O ⌞
lrcorner C ⌟
llbracket O ⟦
rrbracket C ⟧
lBrace O ⦃
rBrace C ⦄
backslash o \\
ldots o …
dotsc o …
dotso o …
dotsb o ⋯
dotsm o ⋯
dotsi o ⋯
cdots o ⋯
vdots o ⋮
ddots o ⋱
iddots o ⋰
adots o ⋰
mathellipsis o …
sum L ∑
prod L ∏
coprod L ∐
bigcup L ⋃
bigcap L ⋂
bigvee L ⋁
bigwedge L ⋀
bigoplus L ⨁
bigotimes L ⨂
bigodot L ⨀
biguplus L ⨄
bigsqcup L ⨆
bigsqcap L ⨅
bigtimes L ⨉
intop L ∫
int N ∫
iint N ∬
iiint N ∭
iiiint N ⨌
oint N ∮
oiint N ∯
oiiint N ∰
intclockwise N ∱
varointclockwise N ∲
ointctrclockwise N ∳
arccos f arccos
arcsin f arcsin
arctan f arctan
arctg f arctg
arcctg f arcctg
arg f arg
ch f ch
cos f cos
cosec f cosec
cosh f cosh
cot f cot
cotg f cotg
coth f coth
csc f csc
ctg f ctg
cth f cth
deg f deg
dim f dim
exp f exp
hom f hom
ker f ker
lg f lg
ln f ln
log f log
sec f sec
sh f sh
sin f sin
sinh f sinh
tan f tan
tanh f tanh
tg f tg
th f th
lim m lim
plim m plim
limsup m lim~sup
liminf m lim~inf
max m max
min m min
sup m sup
inf m inf
det m det
gcd m gcd
Pr m Pr
injlim m inj~lim
projlim m proj~lim
argmax m arg~max
argmin m arg~min
"""

/// Text-mode symbols (inside \text{…}).
// swift-format-ignore
private let textSymbolData = """
% %
$ $
# #
& &
_ _
{ {
} }
textbackslash \\
textasciicircum ^
textasciitilde ~
textbar |
textless <
textgreater >
textendash –
textemdash —
textquoteleft ‘
textquoteright ’
textquotedblleft “
textquotedblright ”
textbullet •
textdagger †
textdaggerdbl ‡
textdegree °
textsection §
textparagraph ¶
textellipsis …
ldots …
dots …
S §
P ¶
dag †
ddag ‡
copyright ©
textcopyright ©
textregistered ®
texttrademark ™
pounds £
textsterling £
euro €
texteuro €
yen ¥
L Ł
l ł
o ø
O Ø
ss ß
ae æ
AE Æ
oe œ
OE Œ
aa å
AA Å
i ı
j ȷ
slash /
lq ‘
rq ’
"""
