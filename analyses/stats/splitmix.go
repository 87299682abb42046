package stats

// SplitMix64 returns output i (from 0) of the splitmix64 generator seeded
// with seed (Steele, Lea & Flood 2014): the state seed + (i+1)·γ, with
// γ = 0x9e3779b97f4a7c15, through the generator's mixing function. It
// derives independent stream keys from one seed: a different i, or a
// different seed, gives an unrelated key.
func SplitMix64(seed, i uint64) uint64 {
	z := seed + 0x9e3779b97f4a7c15*(i+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
