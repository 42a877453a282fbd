// The files screen's daily-use strings (issue #22) travel with the screen, not in the locale chunk every page loads
// (shared/page-strings.ts).
import { addStrings } from '../../shared/page-strings.ts';
import zhCN from './strings.zh_CN.json';
import enUS from './strings.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });
