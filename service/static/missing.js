// The page for an unknown or mistyped game link: its words in the reader's language.

import { loadLanguage } from "./i18n.js";

loadLanguage();
