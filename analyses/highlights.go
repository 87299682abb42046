package analyses

// One-sentence key findings for the site's overview (Highlighter). They
// read only fields the analyses computed; nothing here is a new statistic.
