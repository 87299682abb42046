package site

import (
	"regexp"
	"strings"
	"testing"
)

// The regular expressions plainText was written with: the oracle that
// stripTags and collapseSpace must equal on any input.
var (
	tagOracle   = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>|<[^>]+>`)
	spaceOracle = regexp.MustCompile(`\s+`)
)

var plainTextSeeds = []string{
	"", " ", "<", ">", "<>", "<<>>", "a<b", "a>b", "<p>x</p>", "<p\n class=\"a\">x\ty</p>",
	"<script>var a = 1 < 2;</script>after", "<script src=x></script>", "<style>p{}</style>x",
	"<script>no end", "<script>a</style>b</script>c", "<scripts>x</script>y", "<styled x>y",
	"<script>a</script><script>b</script>", "<SCRIPT>a</SCRIPT>", "<script\n>a\n</script>",
	"a  b\t\tc\n\nd\f\re ", "  lead", "trail  ", "x\u00a0y\u2009z", "&amp; &lt;b&gt;", "<a href=\"#\">1 &lt; 2</a>",
	"<p>a</p>\n\n<p>b</p>", "<script>", "</script>", "<style", "a <br/> b", "\xff<\xfe>",
}

// TestStripTagsAndCollapseSpace holds the hand-written stripTags and
// collapseSpace equal to the regular expressions on every seed
// (FuzzPlainText tries more).
func TestStripTagsAndCollapseSpace(t *testing.T) {
	for _, s := range plainTextSeeds {
		checkPlainText(t, s)
	}
	long := strings.Repeat("<td class=\"num\">0.123</td>\n  ", 1000) + "<script>x<y</script>"
	checkPlainText(t, long)
}

func FuzzPlainText(f *testing.F) {
	for _, s := range plainTextSeeds {
		f.Add(s)
	}
	f.Fuzz(checkPlainText)
}

func checkPlainText(t *testing.T, s string) {
	if got, want := stripTags(s), tagOracle.ReplaceAllString(s, " "); got != want {
		t.Errorf("stripTags(%q) = %q, the regexp gives %q", s, got, want)
	}
	if got, want := collapseSpace(s), spaceOracle.ReplaceAllString(s, " "); got != want {
		t.Errorf("collapseSpace(%q) = %q, the regexp gives %q", s, got, want)
	}
}
