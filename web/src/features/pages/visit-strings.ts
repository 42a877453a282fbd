// The public page's folder and download strings load with that page, not with every page (shared/page-strings.ts).
import { addStrings } from '../../shared/page-strings.ts';
import zhCN from './visit.zh_CN.json';
import enUS from './visit.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });
