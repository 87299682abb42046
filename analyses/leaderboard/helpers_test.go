package leaderboard

func fp(v float64) *float64 { return &v }
