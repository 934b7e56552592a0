import iconv from 'iconv-lite';
import { isMacRoman } from './mac-roman';
import { detectEncoding } from './text-decoding';

/** Tables as people write them, in the languages the review speaks and their neighbours. */
const TABLES: Record<string, string> = {
  German:
    'Name,Stadt,Straße\rJürgen Müller,Köln,Hauptstraße 5\rAnnegret Schäfer,Düsseldorf,Königsallee 12\rBjörn Weiß,Nürnberg,Am Bühl 3\r',
  French: 'nom,ville,remarque\rFrançois Lefèvre,Orléans,très élevé\rHélène Bélanger,Québec,déjà payé\rJérôme Dupré,Besançon,reçu à temps\r',
  Spanish: 'nombre,ciudad,nota\rMaría Núñez,León,pagó el año pasado\rJosé Muñoz,Cádiz,también\rInés Peña,Logroño,añadido\r',
  Swedish: 'namn,stad,anteckning\rÅsa Lindström,Göteborg,betald för länge sedan\rMåns Sjöberg,Västerås,väntar på svar\r',
  Italian: 'nome,città,nota\rNiccolò Bellò,Forlì,perché è così\rLucrezia Mascherò,Cantù,già pagato\r',
};

describe('Mac Roman files', () => {
  it.each(Object.keys(TABLES))('a %s table in Mac Roman is detected as macintosh, and in windows-1252 as windows-1252', (language) => {
    const mac = iconv.encode(TABLES[language], 'macintosh');
    expect(isMacRoman(mac)).toBe(true);
    expect(detectEncoding(mac)).toBe('macintosh');
    const windows = iconv.encode(TABLES[language].replace(/\r/g, '\r\n'), 'windows-1252');
    expect(isMacRoman(windows)).toBe(false);
    expect(detectEncoding(windows)).toBe('windows-1252');
  });

  it('a letter windows-1252 leaves undefined (Å, è) no longer fails the file as unrecognised', () => {
    const mac = iconv.encode('name,city\rÅsa,Malmö\rMichèle,Genève\r', 'macintosh');
    expect(detectEncoding(mac)).toBe('macintosh');
  });

  it('Central European text in windows-1250 stays windows-1250, though some of its letters are Mac Roman letters (ť ů, ź ü)', () => {
    const czech = iconv.encode('jméno,město\r\nJiří Dvořák,Brno\r\nZdeňka Šťastná,Třeboň\r\nLuboš Chuť,Ústí nad Labem\r\n', 'windows-1250');
    const polish = iconv.encode(
      'imię,miasto\r\nŁukasz Woźniak,Łódź\r\nGrażyna Jeździk,Gdańsk\r\nZbigniew Późny,Kraków\r\n',
      'windows-1250',
    );
    for (const sample of [czech, polish]) {
      expect(isMacRoman(sample)).toBe(false);
      expect(detectEncoding(sample)).toBe('windows-1250');
    }
  });

  it('one accented word is not enough to call a file Mac Roman, nor are signs between letters of windows-1252 text', () => {
    expect(isMacRoman(iconv.encode('name,city\rJürgen,Bonn\r', 'macintosh'))).toBe(false);
    // windows-1252's quotes and dashes inside words (Word's apostrophes: "don’t") read as Mac Roman letters (í, ó).
    const curly = iconv.encode('name,note\nAnn,don’t call – it’s late\nBob,we’re closed – they’ve left\n', 'windows-1252');
    expect(isMacRoman(curly)).toBe(false);
  });
});
