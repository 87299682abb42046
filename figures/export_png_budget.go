package figures

import "sync"

// pngPixelBudget is how many bytes of PNG images the process draws at
// once (pngImages). A 300 dpi image is 4 bytes a dot: a 35-row forest
// plot laid out for a manuscript is about 20 MB, and the analyses of a
// build draw their figures side by side. Two seed-000-sized forest plots
// (7.8 MB each) fit together; two 20 MB ones are drawn one after the
// other, so peak memory stays near one large image whatever the number
// of analyses.
const pngPixelBudget = 24 << 20

// pngImages is the process's budget of PNG image bytes.
var pngImages = newByteBudget(pngPixelBudget)

// byteBudget hands out bytes of a fixed total: take waits while the
// bytes taken and not yet given back, plus n, would pass the total, but
// never when nothing is taken (so a request larger than the total still
// runs, alone).
type byteBudget struct {
	mu      sync.Mutex
	freed   *sync.Cond
	max     int
	used    int
	waiting int // takes waiting now
}

func newByteBudget(max int) *byteBudget {
	b := &byteBudget{max: max}
	b.freed = sync.NewCond(&b.mu)
	return b
}

// take waits for n bytes and returns the function that gives them back.
func (b *byteBudget) take(n int) (give func()) {
	b.mu.Lock()
	for b.used > 0 && b.used+n > b.max {
		b.waiting++
		b.freed.Wait()
		b.waiting--
	}
	b.used += n
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.used -= n
			b.mu.Unlock()
			b.freed.Broadcast()
		})
	}
}
