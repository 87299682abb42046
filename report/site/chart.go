package site

import (
	"encoding/json"
	"fmt"

	"github.com/evalbook/evalbook/figures"
	"github.com/evalbook/evalbook/figures/model"
)

// The site's interactive charts are their figures' options as
// model.StyleChart lays them out (legends, rounded numbers): the Explore
// page's charts go through it too.

// Palette is the charts' default colour list (figures.Palette), each
// colour with at least 3:1 contrast against the light theme's background
// (#fdfdfc); against the dark background (#16181b) the page's script
// lightens the two that fall short (purple, near-black) until they reach
// 3:1 — dark mode draws light marks where the light theme draws dark
// ones.
var Palette = func() []string {
	out := make([]string, len(figures.Palette))
	for i := range out {
		out[i] = figures.Hex(i)
	}
	return out
}()

// styleCharts gives every chart of the site the palette as its default
// colours, unpaged legends and rounded numbers.
func (b *siteBuild) styleCharts() error {
	for _, v := range b.views {
		for i := range v.Figures {
			f := &v.Figures[i]
			if f.Chart == "" {
				continue
			}
			out, err := model.StyleChart([]byte(f.Chart), &f.Height)
			if err != nil {
				return fmt.Errorf("%s: figure %s: chart option: %w", v.ID, f.ID, err)
			}
			f.Chart = string(out)
			if len(out) > chartInlineLimit && !b.m.Options.SingleFile {
				f.ChartSrc = "data/charts/" + f.ID + ".js"
			}
		}
	}
	return nil
}

// chartInlineLimit is the size above which a chart's option leaves the
// page for a script of its own (data/charts/<figure>.js), loaded when the
// chart is drawn: the page's HTML stays small and parses fast. A script,
// not JSON, so that it loads from file:// where fetch cannot.
const chartInlineLimit = 16 << 10

// chartScript is data/charts/<id>.js: it registers the option under the
// figure's id.
func chartScript(id, option string) []byte {
	key, _ := json.Marshal(id)
	return []byte("(window.EVALBOOK_CHARTS=window.EVALBOOK_CHARTS||{})[" + string(key) + "]=" + option + ";\n")
}
