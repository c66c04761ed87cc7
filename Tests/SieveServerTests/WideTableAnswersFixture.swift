// The answers of a 25-field table (the object ID and 24 properties: strings — dictionary-encoded
// and plain, with quotes, backslashes, control characters, non-ASCII text and many NULLs —,
// 64-bit integers, doubles, dates) as the server wrote them before its writers stopped
// preparing every distinct string and field description per request: the writers must keep
// writing the same bytes.

enum WideTableAnswers {
    /// The table: 30 point features, object IDs 1…30, 24 properties.
    static let geoJSON = ####"""
{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[-10.0,40.0]},"properties":{"big_id":9007199254740993,"small_int":0,"name":"Quote \"0\"","category":"tab\there","kind":"a","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":null,"height":59.111,"count":null,"created":"2010-01-10T00:30:00.000Z","updated":"2023-01-20T12:00:00.000Z","flag":1,"code":"C3","empty":" ","street":null,"zip":"10000","url":null}},{"type":"Feature","id":2,"geometry":{"type":"Point","coordinates":[-9.63,40.51]},"properties":{"big_id":9007199255740996,"small_int":null,"name":null,"category":"Zürich","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"same","note5":null,"note6":null,"note7":null,"ratio":null,"height":62.789,"count":null,"created":"2011-02-11T01:31:00.001Z","updated":null,"flag":1,"code":"C3","empty":null,"street":"Rue de l'Église","zip":"10001","url":"https://example.org/1?q=\"x\"&a=b"}},{"type":"Feature","id":3,"geometry":{"type":"Point","coordinates":[-9.26,41.02]},"properties":{"big_id":9007199256740999,"small_int":0,"name":"ctl\u00012","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"ü","note5":null,"note6":"n6-2","note7":null,"ratio":1.5,"height":151.985,"count":null,"created":"2012-03-12T02:32:00.002Z","updated":null,"flag":1,"code":"A1","empty":" ","street":"Rue de l'Église","zip":"10002","url":null}},{"type":"Feature","id":4,"geometry":{"type":"Point","coordinates":[-8.89,41.53]},"properties":{"big_id":9007199257741002,"small_int":-5,"name":"slash\\3/x","category":"park","kind":"a","note0":"ü","note1":null,"note2":null,"note3":"x\"y","note4":null,"note5":"ü","note6":null,"note7":null,"ratio":123456789.125,"height":null,"count":186210300457,"created":"2013-04-13T03:33:00.003Z","updated":"2023-04-23T12:00:00.000Z","flag":0,"code":"A1","empty":"","street":"Rue de l'Église","zip":null,"url":null}},{"type":"Feature","id":5,"geometry":{"type":"Point","coordinates":[-8.52,42.04]},"properties":{"big_id":9007199258741005,"small_int":-5,"name":"slash\\4/x","category":"park","kind":"b","note0":null,"note1":null,"note2":"ü","note3":"x\"y","note4":"x\"y","note5":null,"note6":null,"note7":null,"ratio":null,"height":null,"count":null,"created":"2014-05-14T04:34:00.004Z","updated":null,"flag":0,"code":"C3","empty":"","street":"Rue de l'Église","zip":null,"url":null}},{"type":"Feature","id":6,"geometry":{"type":"Point","coordinates":[-8.15,42.55]},"properties":{"big_id":9007199259741008,"small_int":42,"name":"東京 5","category":"Zürich","kind":"c","note0":"n0-5","note1":null,"note2":"ü","note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":1.5,"height":null,"count":null,"created":"2015-06-15T05:35:00.005Z","updated":"2023-06-25T12:00:00.000Z","flag":null,"code":"A1","empty":" ","street":"Main St","zip":"10005","url":"https://example.org/5?q=\"x\"&a=b"}},{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[-7.78,43.06]},"properties":{"big_id":9007199260741011,"small_int":42,"name":null,"category":"park","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":"ü","note7":null,"ratio":0.30000000000000004,"height":null,"count":null,"created":"2016-07-16T06:36:00.006Z","updated":null,"flag":0,"code":"B2","empty":" ","street":"Main St","zip":"10006","url":null}},{"type":"Feature","id":8,"geometry":{"type":"Point","coordinates":[-7.41,40.0]},"properties":{"big_id":9007199261741014,"small_int":42,"name":"東京 7","category":"a \"quoted\" kind","kind":"a","note0":"x\"y","note1":"n1-7","note2":null,"note3":null,"note4":null,"note5":null,"note6":"x\"y","note7":null,"ratio":-2.0,"height":984.926,"count":265455086226,"created":"2017-08-17T07:37:00.007Z","updated":"2023-08-27T12:00:00.000Z","flag":1,"code":"A1","empty":"","street":"High Street","zip":"10007","url":null}},{"type":"Feature","id":9,"geometry":{"type":"Point","coordinates":[-7.04,40.51]},"properties":{"big_id":9007199262741017,"small_int":null,"name":"ctl\u00018","category":"tab\there","kind":"c","note0":null,"note1":null,"note2":null,"note3":"x\"y","note4":"x\"y","note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":null,"count":673881693045,"created":"2018-09-18T08:38:00.008Z","updated":"2023-09-28T12:00:00.000Z","flag":0,"code":"C3","empty":null,"street":null,"zip":"10008","url":null}},{"type":"Feature","id":10,"geometry":{"type":"Point","coordinates":[-6.67,41.02]},"properties":{"big_id":9007199263741020,"small_int":-5,"name":"Line\nbreak 9","category":"tab\there","kind":"b","note0":null,"note1":null,"note2":null,"note3":"ü","note4":null,"note5":"n5-9","note6":"same","note7":"n7-9","ratio":1.5,"height":465.354,"count":908864786927,"created":"2019-01-19T09:39:00.009Z","updated":"2023-01-29T12:00:00.000Z","flag":0,"code":"C3","empty":null,"street":"Main St","zip":"10009","url":null}},{"type":"Feature","id":11,"geometry":{"type":"Point","coordinates":[-6.3,41.53]},"properties":{"big_id":9007199264741023,"small_int":null,"name":"Place 10","category":"Zürich","kind":"b","note0":null,"note1":"same","note2":null,"note3":null,"note4":null,"note5":"x\"y","note6":null,"note7":null,"ratio":1.5,"height":null,"count":506366782970,"created":"2020-02-10T00:30:00.010Z","updated":"2023-02-20T12:00:00.000Z","flag":1,"code":"B2","empty":" ","street":"Main St","zip":"10010","url":null}},{"type":"Feature","id":12,"geometry":{"type":"Point","coordinates":[-5.93,42.04]},"properties":{"big_id":9007199265741026,"small_int":null,"name":"slash\\11/x","category":"a \"quoted\" kind","kind":"a","note0":"same","note1":null,"note2":null,"note3":"n3-11","note4":null,"note5":null,"note6":null,"note7":"n7-11","ratio":-2.0,"height":null,"count":null,"created":"2021-03-11T01:31:00.011Z","updated":null,"flag":null,"code":"C3","empty":null,"street":null,"zip":"10011","url":"https://example.org/11?q=\"x\"&a=b"}},{"type":"Feature","id":13,"geometry":{"type":"Point","coordinates":[-5.56,42.55]},"properties":{"big_id":9007199266741029,"small_int":-5,"name":"東京 12","category":"Zürich","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"x\"y","note5":"same","note6":"same","note7":null,"ratio":1e+21,"height":null,"count":null,"created":"2022-04-12T02:32:00.012Z","updated":null,"flag":null,"code":"A1","empty":" ","street":"Rue de l'Église","zip":"10012","url":"https://example.org/12?q=\"x\"&a=b"}},{"type":"Feature","id":14,"geometry":{"type":"Point","coordinates":[-5.19,43.06]},"properties":{"big_id":9007199267741032,"small_int":null,"name":"東京 13","category":"a \"quoted\" kind","kind":"c","note0":"ü","note1":null,"note2":"ü","note3":"same","note4":"same","note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":null,"count":null,"created":"2023-05-13T03:33:00.013Z","updated":null,"flag":0,"code":"A1","empty":null,"street":"High Street","zip":"10013","url":null}},{"type":"Feature","id":15,"geometry":{"type":"Point","coordinates":[-4.82,40.0]},"properties":{"big_id":9007199268741035,"small_int":0,"name":"ctl\u000114","category":"Zürich","kind":"a","note0":null,"note1":"same","note2":"n2-14","note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1e+21,"height":675.974,"count":164952289898,"created":"2024-06-14T04:34:00.014Z","updated":"2023-06-24T12:00:00.000Z","flag":1,"code":"C3","empty":null,"street":"Rue de l'Église","zip":null,"url":null}},{"type":"Feature","id":16,"geometry":{"type":"Point","coordinates":[-4.45,40.51]},"properties":{"big_id":9007199269741038,"small_int":123456,"name":"Quote \"15\"","category":"tab\there","kind":"a","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":null,"height":null,"count":null,"created":"2010-07-15T05:35:00.015Z","updated":"2023-07-25T12:00:00.000Z","flag":0,"code":"C3","empty":"","street":null,"zip":"10015","url":null}},{"type":"Feature","id":17,"geometry":{"type":"Point","coordinates":[-4.08,41.02]},"properties":{"big_id":9007199270741041,"small_int":null,"name":"Quote \"16\"","category":"back\\slash","kind":"a","note0":null,"note1":"x\"y","note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":"x\"y","ratio":null,"height":null,"count":563454425225,"created":"2011-08-16T06:36:00.016Z","updated":null,"flag":0,"code":"A1","empty":" ","street":"High Street","zip":"10016","url":null}},{"type":"Feature","id":18,"geometry":{"type":"Point","coordinates":[-3.71,41.53]},"properties":{"big_id":9007199271741044,"small_int":-5,"name":"ctl\u000117","category":null,"kind":"b","note0":"x\"y","note1":null,"note2":"same","note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":123456789.125,"height":430.741,"count":null,"created":"2012-09-17T07:37:00.017Z","updated":"2023-09-27T12:00:00.000Z","flag":0,"code":"C3","empty":" ","street":"Rue de l'Église","zip":"10017","url":null}},{"type":"Feature","id":19,"geometry":{"type":"Point","coordinates":[-3.34,42.04]},"properties":{"big_id":9007199272741047,"small_int":null,"name":"slash\\18/x","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"x\"y","note5":null,"note6":"x\"y","note7":null,"ratio":1.5,"height":null,"count":null,"created":"2013-01-18T08:38:00.018Z","updated":null,"flag":1,"code":"C3","empty":"","street":"Main St","zip":"10018","url":null}},{"type":"Feature","id":20,"geometry":{"type":"Point","coordinates":[-2.97,42.55]},"properties":{"big_id":9007199273741050,"small_int":0,"name":"Place 19","category":"a \"quoted\" kind","kind":null,"note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":"ü","ratio":0.30000000000000004,"height":494.191,"count":null,"created":"2014-02-19T09:39:00.019Z","updated":"2023-02-29T12:00:00.000Z","flag":null,"code":"A1","empty":" ","street":"High Street","zip":"10019","url":"https://example.org/19?q=\"x\"&a=b"}},{"type":"Feature","id":21,"geometry":{"type":"Point","coordinates":[-2.6,43.06]},"properties":{"big_id":9007199274741053,"small_int":null,"name":null,"category":null,"kind":"b","note0":null,"note1":null,"note2":null,"note3":"ü","note4":"n4-20","note5":null,"note6":null,"note7":null,"ratio":1e+21,"height":null,"count":null,"created":"2015-03-10T00:30:00.020Z","updated":null,"flag":1,"code":"C3","empty":"","street":null,"zip":"10020","url":null}},{"type":"Feature","id":22,"geometry":{"type":"Point","coordinates":[-2.23,40.0]},"properties":{"big_id":9007199275741056,"small_int":null,"name":"ctl\u000121","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":"n3-21","note4":null,"note5":null,"note6":"same","note7":null,"ratio":1.5,"height":null,"count":333688408049,"created":"2016-04-11T01:31:00.021Z","updated":"2023-04-21T12:00:00.000Z","flag":null,"code":"A1","empty":null,"street":null,"zip":"10021","url":"https://example.org/21?q=\"x\"&a=b"}},{"type":"Feature","id":23,"geometry":{"type":"Point","coordinates":[-1.86,40.51]},"properties":{"big_id":9007199276741059,"small_int":null,"name":"Line\nbreak 22","category":null,"kind":null,"note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1e+21,"height":null,"count":null,"created":"2017-05-12T02:32:00.022Z","updated":"2023-05-22T12:00:00.000Z","flag":0,"code":"B2","empty":null,"street":"Main St","zip":"10022","url":"https://example.org/22?q=\"x\"&a=b"}},{"type":"Feature","id":24,"geometry":{"type":"Point","coordinates":[-1.49,41.02]},"properties":{"big_id":9007199277741062,"small_int":null,"name":"Place 23","category":"a \"quoted\" kind","kind":"c","note0":"same","note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":"ü","ratio":null,"height":null,"count":496848637705,"created":"2018-06-13T03:33:00.023Z","updated":null,"flag":1,"code":"A1","empty":null,"street":"Rue de l'Église","zip":"10023","url":null}},{"type":"Feature","id":25,"geometry":{"type":"Point","coordinates":[-1.12,41.53]},"properties":{"big_id":9007199278741065,"small_int":0,"name":null,"category":"back\\slash","kind":"c","note0":"n0-24","note1":"same","note2":"x\"y","note3":null,"note4":null,"note5":null,"note6":"n6-24","note7":null,"ratio":1e+21,"height":854.255,"count":null,"created":"2019-07-14T04:34:00.024Z","updated":null,"flag":1,"code":"B2","empty":" ","street":"Main St","zip":null,"url":null}},{"type":"Feature","id":26,"geometry":{"type":"Point","coordinates":[-0.75,42.04]},"properties":{"big_id":9007199279741068,"small_int":42,"name":"東京 25","category":"a \"quoted\" kind","kind":"c","note0":"ü","note1":"ü","note2":"same","note3":"n3-25","note4":"ü","note5":null,"note6":"x\"y","note7":null,"ratio":-2.0,"height":null,"count":null,"created":"2020-08-15T05:35:00.025Z","updated":null,"flag":0,"code":"B2","empty":" ","street":"Rue de l'Église","zip":"10025","url":null}},{"type":"Feature","id":27,"geometry":{"type":"Point","coordinates":[-0.38,42.55]},"properties":{"big_id":9007199280741071,"small_int":-5,"name":"emoji 😀 26","category":"park","kind":"b","note0":null,"note1":null,"note2":null,"note3":"same","note4":null,"note5":null,"note6":"ü","note7":null,"ratio":1.5,"height":null,"count":null,"created":"2021-09-16T06:36:00.026Z","updated":"2023-09-26T12:00:00.000Z","flag":0,"code":"A1","empty":null,"street":"Rue de l'Église","zip":"10026","url":null}},{"type":"Feature","id":28,"geometry":{"type":"Point","coordinates":[-0.01,43.06]},"properties":{"big_id":9007199281741074,"small_int":null,"name":"emoji 😀 27","category":"tab\there","kind":null,"note0":"same","note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1.5,"height":null,"count":439738340088,"created":"2022-01-17T07:37:00.027Z","updated":"2023-01-27T12:00:00.000Z","flag":0,"code":"B2","empty":"","street":"Main St","zip":null,"url":null}},{"type":"Feature","id":29,"geometry":{"type":"Point","coordinates":[0.36,40.0]},"properties":{"big_id":9007199282741077,"small_int":-5,"name":"slash\\28/x","category":"park","kind":"a","note0":null,"note1":"ü","note2":"same","note3":"same","note4":null,"note5":null,"note6":null,"note7":"ü","ratio":null,"height":39.546,"count":623769167802,"created":"2023-02-18T08:38:00.028Z","updated":"2023-02-28T12:00:00.000Z","flag":1,"code":"C3","empty":null,"street":"Main St","zip":"10028","url":null}},{"type":"Feature","id":30,"geometry":{"type":"Point","coordinates":[0.73,40.51]},"properties":{"big_id":9007199283741080,"small_int":-5,"name":"Place 29","category":"park","kind":"a","note0":null,"note1":"same","note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":883.774,"count":null,"created":"2024-03-19T09:39:00.029Z","updated":null,"flag":null,"code":"A1","empty":null,"street":"Rue de l'Église","zip":null,"url":null}}]}
"""####

    /// Request path → the answer's bytes, as text.
    static let answers: [(path: String, body: String)] = [
        ("/arcgis/rest/services/wide25/FeatureServer/0/query?where=1%3D1&outFields=*&f=json",
         ####"""
{"objectIdFieldName":"OBJECTID","geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","nullable":false,"editable":false},{"name":"big_id","type":"esriFieldTypeBigInteger","alias":"big_id","nullable":true,"editable":true},{"name":"small_int","type":"esriFieldTypeInteger","alias":"small_int","nullable":true,"editable":true},{"name":"name","type":"esriFieldTypeString","alias":"name","nullable":true,"editable":true},{"name":"category","type":"esriFieldTypeString","alias":"category","nullable":true,"editable":true},{"name":"kind","type":"esriFieldTypeString","alias":"kind","nullable":true,"editable":true},{"name":"note0","type":"esriFieldTypeString","alias":"note0","nullable":true,"editable":true},{"name":"note1","type":"esriFieldTypeString","alias":"note1","nullable":true,"editable":true},{"name":"note2","type":"esriFieldTypeString","alias":"note2","nullable":true,"editable":true},{"name":"note3","type":"esriFieldTypeString","alias":"note3","nullable":true,"editable":true},{"name":"note4","type":"esriFieldTypeString","alias":"note4","nullable":true,"editable":true},{"name":"note5","type":"esriFieldTypeString","alias":"note5","nullable":true,"editable":true},{"name":"note6","type":"esriFieldTypeString","alias":"note6","nullable":true,"editable":true},{"name":"note7","type":"esriFieldTypeString","alias":"note7","nullable":true,"editable":true},{"name":"ratio","type":"esriFieldTypeDouble","alias":"ratio","nullable":true,"editable":true},{"name":"height","type":"esriFieldTypeDouble","alias":"height","nullable":true,"editable":true},{"name":"count","type":"esriFieldTypeBigInteger","alias":"count","nullable":true,"editable":true},{"name":"created","type":"esriFieldTypeDate","alias":"created","nullable":true,"editable":true},{"name":"updated","type":"esriFieldTypeString","alias":"updated","nullable":true,"editable":true},{"name":"flag","type":"esriFieldTypeInteger","alias":"flag","nullable":true,"editable":true},{"name":"code","type":"esriFieldTypeString","alias":"code","nullable":true,"editable":true},{"name":"empty","type":"esriFieldTypeString","alias":"empty","nullable":true,"editable":true},{"name":"street","type":"esriFieldTypeString","alias":"street","nullable":true,"editable":true},{"name":"zip","type":"esriFieldTypeString","alias":"zip","nullable":true,"editable":true},{"name":"url","type":"esriFieldTypeString","alias":"url","nullable":true,"editable":true}],"features":[{"attributes":{"OBJECTID":1,"big_id":9007199254740993,"small_int":0,"name":"Quote \"0\"","category":"tab\there","kind":"a","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":null,"height":59.111,"count":null,"created":1263083400000,"updated":"2023-01-20T12:00:00.000Z","flag":1,"code":"C3","empty":" ","street":null,"zip":"10000","url":null},"geometry":{"x":-10,"y":40}},{"attributes":{"OBJECTID":2,"big_id":9007199255740996,"small_int":null,"name":null,"category":"Zürich","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"same","note5":null,"note6":null,"note7":null,"ratio":null,"height":62.789,"count":null,"created":1297387860001,"updated":null,"flag":1,"code":"C3","empty":null,"street":"Rue de l'Église","zip":"10001","url":"https://example.org/1?q=\"x\"&a=b"},"geometry":{"x":-9.63,"y":40.51}},{"attributes":{"OBJECTID":3,"big_id":9007199256740999,"small_int":0,"name":"ctl\u00012","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"ü","note5":null,"note6":"n6-2","note7":null,"ratio":1.5,"height":151.985,"count":null,"created":1331519520002,"updated":null,"flag":1,"code":"A1","empty":" ","street":"Rue de l'Église","zip":"10002","url":null},"geometry":{"x":-9.26,"y":41.02}},{"attributes":{"OBJECTID":4,"big_id":9007199257741002,"small_int":-5,"name":"slash\\3/x","category":"park","kind":"a","note0":"ü","note1":null,"note2":null,"note3":"x\"y","note4":null,"note5":"ü","note6":null,"note7":null,"ratio":123456789.125,"height":null,"count":186210300457,"created":1365823980003,"updated":"2023-04-23T12:00:00.000Z","flag":0,"code":"A1","empty":"","street":"Rue de l'Église","zip":null,"url":null},"geometry":{"x":-8.89,"y":41.53}},{"attributes":{"OBJECTID":5,"big_id":9007199258741005,"small_int":-5,"name":"slash\\4/x","category":"park","kind":"b","note0":null,"note1":null,"note2":"ü","note3":"x\"y","note4":"x\"y","note5":null,"note6":null,"note7":null,"ratio":null,"height":null,"count":null,"created":1400042040004,"updated":null,"flag":0,"code":"C3","empty":"","street":"Rue de l'Église","zip":null,"url":null},"geometry":{"x":-8.52,"y":42.04}},{"attributes":{"OBJECTID":6,"big_id":9007199259741008,"small_int":42,"name":"東京 5","category":"Zürich","kind":"c","note0":"n0-5","note1":null,"note2":"ü","note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":1.5,"height":null,"count":null,"created":1434346500005,"updated":"2023-06-25T12:00:00.000Z","flag":null,"code":"A1","empty":" ","street":"Main St","zip":"10005","url":"https://example.org/5?q=\"x\"&a=b"},"geometry":{"x":-8.15,"y":42.55}},{"attributes":{"OBJECTID":7,"big_id":9007199260741011,"small_int":42,"name":null,"category":"park","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":"ü","note7":null,"ratio":0.30000000000000004,"height":null,"count":null,"created":1468650960006,"updated":null,"flag":0,"code":"B2","empty":" ","street":"Main St","zip":"10006","url":null},"geometry":{"x":-7.78,"y":43.06}},{"attributes":{"OBJECTID":8,"big_id":9007199261741014,"small_int":42,"name":"東京 7","category":"a \"quoted\" kind","kind":"a","note0":"x\"y","note1":"n1-7","note2":null,"note3":null,"note4":null,"note5":null,"note6":"x\"y","note7":null,"ratio":-2.0,"height":984.926,"count":265455086226,"created":1502955420007,"updated":"2023-08-27T12:00:00.000Z","flag":1,"code":"A1","empty":"","street":"High Street","zip":"10007","url":null},"geometry":{"x":-7.41,"y":40}},{"attributes":{"OBJECTID":9,"big_id":9007199262741017,"small_int":null,"name":"ctl\u00018","category":"tab\there","kind":"c","note0":null,"note1":null,"note2":null,"note3":"x\"y","note4":"x\"y","note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":null,"count":673881693045,"created":1537259880008,"updated":"2023-09-28T12:00:00.000Z","flag":0,"code":"C3","empty":null,"street":null,"zip":"10008","url":null},"geometry":{"x":-7.04,"y":40.51}},{"attributes":{"OBJECTID":10,"big_id":9007199263741020,"small_int":-5,"name":"Line\nbreak 9","category":"tab\there","kind":"b","note0":null,"note1":null,"note2":null,"note3":"ü","note4":null,"note5":"n5-9","note6":"same","note7":"n7-9","ratio":1.5,"height":465.354,"count":908864786927,"created":1547890740009,"updated":"2023-01-29T12:00:00.000Z","flag":0,"code":"C3","empty":null,"street":"Main St","zip":"10009","url":null},"geometry":{"x":-6.67,"y":41.02}},{"attributes":{"OBJECTID":11,"big_id":9007199264741023,"small_int":null,"name":"Place 10","category":"Zürich","kind":"b","note0":null,"note1":"same","note2":null,"note3":null,"note4":null,"note5":"x\"y","note6":null,"note7":null,"ratio":1.5,"height":null,"count":506366782970,"created":1581294600010,"updated":"2023-02-20T12:00:00.000Z","flag":1,"code":"B2","empty":" ","street":"Main St","zip":"10010","url":null},"geometry":{"x":-6.3,"y":41.53}},{"attributes":{"OBJECTID":12,"big_id":9007199265741026,"small_int":null,"name":"slash\\11/x","category":"a \"quoted\" kind","kind":"a","note0":"same","note1":null,"note2":null,"note3":"n3-11","note4":null,"note5":null,"note6":null,"note7":"n7-11","ratio":-2.0,"height":null,"count":null,"created":1615426260011,"updated":null,"flag":null,"code":"C3","empty":null,"street":null,"zip":"10011","url":"https://example.org/11?q=\"x\"&a=b"},"geometry":{"x":-5.93,"y":42.04}},{"attributes":{"OBJECTID":13,"big_id":9007199266741029,"small_int":-5,"name":"東京 12","category":"Zürich","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"x\"y","note5":"same","note6":"same","note7":null,"ratio":1e+21,"height":null,"count":null,"created":1649730720012,"updated":null,"flag":null,"code":"A1","empty":" ","street":"Rue de l'Église","zip":"10012","url":"https://example.org/12?q=\"x\"&a=b"},"geometry":{"x":-5.56,"y":42.55}},{"attributes":{"OBJECTID":14,"big_id":9007199267741032,"small_int":null,"name":"東京 13","category":"a \"quoted\" kind","kind":"c","note0":"ü","note1":null,"note2":"ü","note3":"same","note4":"same","note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":null,"count":null,"created":1683948780013,"updated":null,"flag":0,"code":"A1","empty":null,"street":"High Street","zip":"10013","url":null},"geometry":{"x":-5.19,"y":43.06}},{"attributes":{"OBJECTID":15,"big_id":9007199268741035,"small_int":0,"name":"ctl\u000114","category":"Zürich","kind":"a","note0":null,"note1":"same","note2":"n2-14","note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1e+21,"height":675.974,"count":164952289898,"created":1718339640014,"updated":"2023-06-24T12:00:00.000Z","flag":1,"code":"C3","empty":null,"street":"Rue de l'Église","zip":null,"url":null},"geometry":{"x":-4.82,"y":40}},{"attributes":{"OBJECTID":16,"big_id":9007199269741038,"small_int":123456,"name":"Quote \"15\"","category":"tab\there","kind":"a","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":null,"height":null,"count":null,"created":1279172100015,"updated":"2023-07-25T12:00:00.000Z","flag":0,"code":"C3","empty":"","street":null,"zip":"10015","url":null},"geometry":{"x":-4.45,"y":40.51}},{"attributes":{"OBJECTID":17,"big_id":9007199270741041,"small_int":null,"name":"Quote \"16\"","category":"back\\slash","kind":"a","note0":null,"note1":"x\"y","note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":"x\"y","ratio":null,"height":null,"count":563454425225,"created":1313476560016,"updated":null,"flag":0,"code":"A1","empty":" ","street":"High Street","zip":"10016","url":null},"geometry":{"x":-4.08,"y":41.02}},{"attributes":{"OBJECTID":18,"big_id":9007199271741044,"small_int":-5,"name":"ctl\u000117","category":null,"kind":"b","note0":"x\"y","note1":null,"note2":"same","note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":123456789.125,"height":430.741,"count":null,"created":1347867420017,"updated":"2023-09-27T12:00:00.000Z","flag":0,"code":"C3","empty":" ","street":"Rue de l'Église","zip":"10017","url":null},"geometry":{"x":-3.71,"y":41.53}},{"attributes":{"OBJECTID":19,"big_id":9007199272741047,"small_int":null,"name":"slash\\18/x","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"x\"y","note5":null,"note6":"x\"y","note7":null,"ratio":1.5,"height":null,"count":null,"created":1358498280018,"updated":null,"flag":1,"code":"C3","empty":"","street":"Main St","zip":"10018","url":null},"geometry":{"x":-3.34,"y":42.04}},{"attributes":{"OBJECTID":20,"big_id":9007199273741050,"small_int":0,"name":"Place 19","category":"a \"quoted\" kind","kind":null,"note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":"ü","ratio":0.30000000000000004,"height":494.191,"count":null,"created":1392802740019,"updated":"2023-02-29T12:00:00.000Z","flag":null,"code":"A1","empty":" ","street":"High Street","zip":"10019","url":"https://example.org/19?q=\"x\"&a=b"},"geometry":{"x":-2.97,"y":42.55}},{"attributes":{"OBJECTID":21,"big_id":9007199274741053,"small_int":null,"name":null,"category":null,"kind":"b","note0":null,"note1":null,"note2":null,"note3":"ü","note4":"n4-20","note5":null,"note6":null,"note7":null,"ratio":1e+21,"height":null,"count":null,"created":1425947400020,"updated":null,"flag":1,"code":"C3","empty":"","street":null,"zip":"10020","url":null},"geometry":{"x":-2.6,"y":43.06}},{"attributes":{"OBJECTID":22,"big_id":9007199275741056,"small_int":null,"name":"ctl\u000121","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":"n3-21","note4":null,"note5":null,"note6":"same","note7":null,"ratio":1.5,"height":null,"count":333688408049,"created":1460338260021,"updated":"2023-04-21T12:00:00.000Z","flag":null,"code":"A1","empty":null,"street":null,"zip":"10021","url":"https://example.org/21?q=\"x\"&a=b"},"geometry":{"x":-2.23,"y":40}},{"attributes":{"OBJECTID":23,"big_id":9007199276741059,"small_int":null,"name":"Line\nbreak 22","category":null,"kind":null,"note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1e+21,"height":null,"count":null,"created":1494556320022,"updated":"2023-05-22T12:00:00.000Z","flag":0,"code":"B2","empty":null,"street":"Main St","zip":"10022","url":"https://example.org/22?q=\"x\"&a=b"},"geometry":{"x":-1.86,"y":40.51}},{"attributes":{"OBJECTID":24,"big_id":9007199277741062,"small_int":null,"name":"Place 23","category":"a \"quoted\" kind","kind":"c","note0":"same","note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":"ü","ratio":null,"height":null,"count":496848637705,"created":1528860780023,"updated":null,"flag":1,"code":"A1","empty":null,"street":"Rue de l'Église","zip":"10023","url":null},"geometry":{"x":-1.49,"y":41.02}},{"attributes":{"OBJECTID":25,"big_id":9007199278741065,"small_int":0,"name":null,"category":"back\\slash","kind":"c","note0":"n0-24","note1":"same","note2":"x\"y","note3":null,"note4":null,"note5":null,"note6":"n6-24","note7":null,"ratio":1e+21,"height":854.255,"count":null,"created":1563078840024,"updated":null,"flag":1,"code":"B2","empty":" ","street":"Main St","zip":null,"url":null},"geometry":{"x":-1.12,"y":41.53}},{"attributes":{"OBJECTID":26,"big_id":9007199279741068,"small_int":42,"name":"東京 25","category":"a \"quoted\" kind","kind":"c","note0":"ü","note1":"ü","note2":"same","note3":"n3-25","note4":"ü","note5":null,"note6":"x\"y","note7":null,"ratio":-2.0,"height":null,"count":null,"created":1597469700025,"updated":null,"flag":0,"code":"B2","empty":" ","street":"Rue de l'Église","zip":"10025","url":null},"geometry":{"x":-0.75,"y":42.04}},{"attributes":{"OBJECTID":27,"big_id":9007199280741071,"small_int":-5,"name":"emoji 😀 26","category":"park","kind":"b","note0":null,"note1":null,"note2":null,"note3":"same","note4":null,"note5":null,"note6":"ü","note7":null,"ratio":1.5,"height":null,"count":null,"created":1631774160026,"updated":"2023-09-26T12:00:00.000Z","flag":0,"code":"A1","empty":null,"street":"Rue de l'Église","zip":"10026","url":null},"geometry":{"x":-0.38,"y":42.55}},{"attributes":{"OBJECTID":28,"big_id":9007199281741074,"small_int":null,"name":"emoji 😀 27","category":"tab\there","kind":null,"note0":"same","note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1.5,"height":null,"count":439738340088,"created":1642405020027,"updated":"2023-01-27T12:00:00.000Z","flag":0,"code":"B2","empty":"","street":"Main St","zip":null,"url":null},"geometry":{"x":-0.01,"y":43.06}},{"attributes":{"OBJECTID":29,"big_id":9007199282741077,"small_int":-5,"name":"slash\\28/x","category":"park","kind":"a","note0":null,"note1":"ü","note2":"same","note3":"same","note4":null,"note5":null,"note6":null,"note7":"ü","ratio":null,"height":39.546,"count":623769167802,"created":1676709480028,"updated":"2023-02-28T12:00:00.000Z","flag":1,"code":"C3","empty":null,"street":"Main St","zip":"10028","url":null},"geometry":{"x":0.36,"y":40}},{"attributes":{"OBJECTID":30,"big_id":9007199283741080,"small_int":-5,"name":"Place 29","category":"park","kind":"a","note0":null,"note1":"same","note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":883.774,"count":null,"created":1710841140029,"updated":null,"flag":null,"code":"A1","empty":null,"street":"Rue de l'Église","zip":null,"url":null},"geometry":{"x":0.73,"y":40.51}}]}
"""####),
        ("/arcgis/rest/services/wide25/FeatureServer/0/query?where=1%3D1&outFields=*&resultRecordCount=3&f=pjson",
         ####"""
{
  "objectIdFieldName": "OBJECTID",
  "geometryType": "esriGeometryPoint",
  "spatialReference": {
    "wkid": 4326
  },
  "fields": [
    {
      "name": "OBJECTID",
      "type": "esriFieldTypeOID",
      "alias": "OBJECTID",
      "nullable": false,
      "editable": false
    },
    {
      "name": "big_id",
      "type": "esriFieldTypeBigInteger",
      "alias": "big_id",
      "nullable": true,
      "editable": true
    },
    {
      "name": "small_int",
      "type": "esriFieldTypeInteger",
      "alias": "small_int",
      "nullable": true,
      "editable": true
    },
    {
      "name": "name",
      "type": "esriFieldTypeString",
      "alias": "name",
      "nullable": true,
      "editable": true
    },
    {
      "name": "category",
      "type": "esriFieldTypeString",
      "alias": "category",
      "nullable": true,
      "editable": true
    },
    {
      "name": "kind",
      "type": "esriFieldTypeString",
      "alias": "kind",
      "nullable": true,
      "editable": true
    },
    {
      "name": "note0",
      "type": "esriFieldTypeString",
      "alias": "note0",
      "nullable": true,
      "editable": true
    },
    {
      "name": "note1",
      "type": "esriFieldTypeString",
      "alias": "note1",
      "nullable": true,
      "editable": true
    },
    {
      "name": "note2",
      "type": "esriFieldTypeString",
      "alias": "note2",
      "nullable": true,
      "editable": true
    },
    {
      "name": "note3",
      "type": "esriFieldTypeString",
      "alias": "note3",
      "nullable": true,
      "editable": true
    },
    {
      "name": "note4",
      "type": "esriFieldTypeString",
      "alias": "note4",
      "nullable": true,
      "editable": true
    },
    {
      "name": "note5",
      "type": "esriFieldTypeString",
      "alias": "note5",
      "nullable": true,
      "editable": true
    },
    {
      "name": "note6",
      "type": "esriFieldTypeString",
      "alias": "note6",
      "nullable": true,
      "editable": true
    },
    {
      "name": "note7",
      "type": "esriFieldTypeString",
      "alias": "note7",
      "nullable": true,
      "editable": true
    },
    {
      "name": "ratio",
      "type": "esriFieldTypeDouble",
      "alias": "ratio",
      "nullable": true,
      "editable": true
    },
    {
      "name": "height",
      "type": "esriFieldTypeDouble",
      "alias": "height",
      "nullable": true,
      "editable": true
    },
    {
      "name": "count",
      "type": "esriFieldTypeBigInteger",
      "alias": "count",
      "nullable": true,
      "editable": true
    },
    {
      "name": "created",
      "type": "esriFieldTypeDate",
      "alias": "created",
      "nullable": true,
      "editable": true
    },
    {
      "name": "updated",
      "type": "esriFieldTypeString",
      "alias": "updated",
      "nullable": true,
      "editable": true
    },
    {
      "name": "flag",
      "type": "esriFieldTypeInteger",
      "alias": "flag",
      "nullable": true,
      "editable": true
    },
    {
      "name": "code",
      "type": "esriFieldTypeString",
      "alias": "code",
      "nullable": true,
      "editable": true
    },
    {
      "name": "empty",
      "type": "esriFieldTypeString",
      "alias": "empty",
      "nullable": true,
      "editable": true
    },
    {
      "name": "street",
      "type": "esriFieldTypeString",
      "alias": "street",
      "nullable": true,
      "editable": true
    },
    {
      "name": "zip",
      "type": "esriFieldTypeString",
      "alias": "zip",
      "nullable": true,
      "editable": true
    },
    {
      "name": "url",
      "type": "esriFieldTypeString",
      "alias": "url",
      "nullable": true,
      "editable": true
    }
  ],
  "features": [
    {
      "attributes": {
        "OBJECTID": 1,
        "big_id": 9007199254740993,
        "small_int": 0,
        "name": "Quote \"0\"",
        "category": "tab\there",
        "kind": "a",
        "note0": null,
        "note1": null,
        "note2": null,
        "note3": null,
        "note4": null,
        "note5": null,
        "note6": null,
        "note7": null,
        "ratio": null,
        "height": 59.111,
        "count": null,
        "created": 1263083400000,
        "updated": "2023-01-20T12:00:00.000Z",
        "flag": 1,
        "code": "C3",
        "empty": " ",
        "street": null,
        "zip": "10000",
        "url": null
      },
      "geometry": {
        "x": -10,
        "y": 40
      }
    },
    {
      "attributes": {
        "OBJECTID": 2,
        "big_id": 9007199255740996,
        "small_int": null,
        "name": null,
        "category": "Zürich",
        "kind": "b",
        "note0": null,
        "note1": null,
        "note2": null,
        "note3": null,
        "note4": "same",
        "note5": null,
        "note6": null,
        "note7": null,
        "ratio": null,
        "height": 62.789,
        "count": null,
        "created": 1297387860001,
        "updated": null,
        "flag": 1,
        "code": "C3",
        "empty": null,
        "street": "Rue de l'Église",
        "zip": "10001",
        "url": "https://example.org/1?q=\"x\"&a=b"
      },
      "geometry": {
        "x": -9.63,
        "y": 40.51
      }
    },
    {
      "attributes": {
        "OBJECTID": 3,
        "big_id": 9007199256740999,
        "small_int": 0,
        "name": "ctl\u00012",
        "category": "a \"quoted\" kind",
        "kind": "b",
        "note0": null,
        "note1": null,
        "note2": null,
        "note3": null,
        "note4": "ü",
        "note5": null,
        "note6": "n6-2",
        "note7": null,
        "ratio": 1.5,
        "height": 151.985,
        "count": null,
        "created": 1331519520002,
        "updated": null,
        "flag": 1,
        "code": "A1",
        "empty": " ",
        "street": "Rue de l'Église",
        "zip": "10002",
        "url": null
      },
      "geometry": {
        "x": -9.26,
        "y": 41.02
      }
    }
  ],
  "exceededTransferLimit": true
}
"""####),
        ("/arcgis/rest/services/wide25/FeatureServer/0/query?where=1%3D1&outFields=*&f=geojson",
         ####"""
{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[-10,40]},"properties":{"OBJECTID":1,"big_id":9007199254740993,"small_int":0,"name":"Quote \"0\"","category":"tab\there","kind":"a","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":null,"height":59.111,"count":null,"created":"2010-01-10T00:30:00.000Z","updated":"2023-01-20T12:00:00.000Z","flag":1,"code":"C3","empty":" ","street":null,"zip":"10000","url":null}},{"type":"Feature","id":2,"geometry":{"type":"Point","coordinates":[-9.63,40.51]},"properties":{"OBJECTID":2,"big_id":9007199255740996,"small_int":null,"name":null,"category":"Zürich","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"same","note5":null,"note6":null,"note7":null,"ratio":null,"height":62.789,"count":null,"created":"2011-02-11T01:31:00.001Z","updated":null,"flag":1,"code":"C3","empty":null,"street":"Rue de l'Église","zip":"10001","url":"https://example.org/1?q=\"x\"&a=b"}},{"type":"Feature","id":3,"geometry":{"type":"Point","coordinates":[-9.26,41.02]},"properties":{"OBJECTID":3,"big_id":9007199256740999,"small_int":0,"name":"ctl\u00012","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"ü","note5":null,"note6":"n6-2","note7":null,"ratio":1.5,"height":151.985,"count":null,"created":"2012-03-12T02:32:00.002Z","updated":null,"flag":1,"code":"A1","empty":" ","street":"Rue de l'Église","zip":"10002","url":null}},{"type":"Feature","id":4,"geometry":{"type":"Point","coordinates":[-8.89,41.53]},"properties":{"OBJECTID":4,"big_id":9007199257741002,"small_int":-5,"name":"slash\\3/x","category":"park","kind":"a","note0":"ü","note1":null,"note2":null,"note3":"x\"y","note4":null,"note5":"ü","note6":null,"note7":null,"ratio":123456789.125,"height":null,"count":186210300457,"created":"2013-04-13T03:33:00.003Z","updated":"2023-04-23T12:00:00.000Z","flag":0,"code":"A1","empty":"","street":"Rue de l'Église","zip":null,"url":null}},{"type":"Feature","id":5,"geometry":{"type":"Point","coordinates":[-8.52,42.04]},"properties":{"OBJECTID":5,"big_id":9007199258741005,"small_int":-5,"name":"slash\\4/x","category":"park","kind":"b","note0":null,"note1":null,"note2":"ü","note3":"x\"y","note4":"x\"y","note5":null,"note6":null,"note7":null,"ratio":null,"height":null,"count":null,"created":"2014-05-14T04:34:00.004Z","updated":null,"flag":0,"code":"C3","empty":"","street":"Rue de l'Église","zip":null,"url":null}},{"type":"Feature","id":6,"geometry":{"type":"Point","coordinates":[-8.15,42.55]},"properties":{"OBJECTID":6,"big_id":9007199259741008,"small_int":42,"name":"東京 5","category":"Zürich","kind":"c","note0":"n0-5","note1":null,"note2":"ü","note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":1.5,"height":null,"count":null,"created":"2015-06-15T05:35:00.005Z","updated":"2023-06-25T12:00:00.000Z","flag":null,"code":"A1","empty":" ","street":"Main St","zip":"10005","url":"https://example.org/5?q=\"x\"&a=b"}},{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[-7.78,43.06]},"properties":{"OBJECTID":7,"big_id":9007199260741011,"small_int":42,"name":null,"category":"park","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":"ü","note7":null,"ratio":0.30000000000000004,"height":null,"count":null,"created":"2016-07-16T06:36:00.006Z","updated":null,"flag":0,"code":"B2","empty":" ","street":"Main St","zip":"10006","url":null}},{"type":"Feature","id":8,"geometry":{"type":"Point","coordinates":[-7.41,40]},"properties":{"OBJECTID":8,"big_id":9007199261741014,"small_int":42,"name":"東京 7","category":"a \"quoted\" kind","kind":"a","note0":"x\"y","note1":"n1-7","note2":null,"note3":null,"note4":null,"note5":null,"note6":"x\"y","note7":null,"ratio":-2.0,"height":984.926,"count":265455086226,"created":"2017-08-17T07:37:00.007Z","updated":"2023-08-27T12:00:00.000Z","flag":1,"code":"A1","empty":"","street":"High Street","zip":"10007","url":null}},{"type":"Feature","id":9,"geometry":{"type":"Point","coordinates":[-7.04,40.51]},"properties":{"OBJECTID":9,"big_id":9007199262741017,"small_int":null,"name":"ctl\u00018","category":"tab\there","kind":"c","note0":null,"note1":null,"note2":null,"note3":"x\"y","note4":"x\"y","note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":null,"count":673881693045,"created":"2018-09-18T08:38:00.008Z","updated":"2023-09-28T12:00:00.000Z","flag":0,"code":"C3","empty":null,"street":null,"zip":"10008","url":null}},{"type":"Feature","id":10,"geometry":{"type":"Point","coordinates":[-6.67,41.02]},"properties":{"OBJECTID":10,"big_id":9007199263741020,"small_int":-5,"name":"Line\nbreak 9","category":"tab\there","kind":"b","note0":null,"note1":null,"note2":null,"note3":"ü","note4":null,"note5":"n5-9","note6":"same","note7":"n7-9","ratio":1.5,"height":465.354,"count":908864786927,"created":"2019-01-19T09:39:00.009Z","updated":"2023-01-29T12:00:00.000Z","flag":0,"code":"C3","empty":null,"street":"Main St","zip":"10009","url":null}},{"type":"Feature","id":11,"geometry":{"type":"Point","coordinates":[-6.3,41.53]},"properties":{"OBJECTID":11,"big_id":9007199264741023,"small_int":null,"name":"Place 10","category":"Zürich","kind":"b","note0":null,"note1":"same","note2":null,"note3":null,"note4":null,"note5":"x\"y","note6":null,"note7":null,"ratio":1.5,"height":null,"count":506366782970,"created":"2020-02-10T00:30:00.010Z","updated":"2023-02-20T12:00:00.000Z","flag":1,"code":"B2","empty":" ","street":"Main St","zip":"10010","url":null}},{"type":"Feature","id":12,"geometry":{"type":"Point","coordinates":[-5.93,42.04]},"properties":{"OBJECTID":12,"big_id":9007199265741026,"small_int":null,"name":"slash\\11/x","category":"a \"quoted\" kind","kind":"a","note0":"same","note1":null,"note2":null,"note3":"n3-11","note4":null,"note5":null,"note6":null,"note7":"n7-11","ratio":-2.0,"height":null,"count":null,"created":"2021-03-11T01:31:00.011Z","updated":null,"flag":null,"code":"C3","empty":null,"street":null,"zip":"10011","url":"https://example.org/11?q=\"x\"&a=b"}},{"type":"Feature","id":13,"geometry":{"type":"Point","coordinates":[-5.56,42.55]},"properties":{"OBJECTID":13,"big_id":9007199266741029,"small_int":-5,"name":"東京 12","category":"Zürich","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"x\"y","note5":"same","note6":"same","note7":null,"ratio":1e+21,"height":null,"count":null,"created":"2022-04-12T02:32:00.012Z","updated":null,"flag":null,"code":"A1","empty":" ","street":"Rue de l'Église","zip":"10012","url":"https://example.org/12?q=\"x\"&a=b"}},{"type":"Feature","id":14,"geometry":{"type":"Point","coordinates":[-5.19,43.06]},"properties":{"OBJECTID":14,"big_id":9007199267741032,"small_int":null,"name":"東京 13","category":"a \"quoted\" kind","kind":"c","note0":"ü","note1":null,"note2":"ü","note3":"same","note4":"same","note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":null,"count":null,"created":"2023-05-13T03:33:00.013Z","updated":null,"flag":0,"code":"A1","empty":null,"street":"High Street","zip":"10013","url":null}},{"type":"Feature","id":15,"geometry":{"type":"Point","coordinates":[-4.82,40]},"properties":{"OBJECTID":15,"big_id":9007199268741035,"small_int":0,"name":"ctl\u000114","category":"Zürich","kind":"a","note0":null,"note1":"same","note2":"n2-14","note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1e+21,"height":675.974,"count":164952289898,"created":"2024-06-14T04:34:00.014Z","updated":"2023-06-24T12:00:00.000Z","flag":1,"code":"C3","empty":null,"street":"Rue de l'Église","zip":null,"url":null}},{"type":"Feature","id":16,"geometry":{"type":"Point","coordinates":[-4.45,40.51]},"properties":{"OBJECTID":16,"big_id":9007199269741038,"small_int":123456,"name":"Quote \"15\"","category":"tab\there","kind":"a","note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":null,"height":null,"count":null,"created":"2010-07-15T05:35:00.015Z","updated":"2023-07-25T12:00:00.000Z","flag":0,"code":"C3","empty":"","street":null,"zip":"10015","url":null}},{"type":"Feature","id":17,"geometry":{"type":"Point","coordinates":[-4.08,41.02]},"properties":{"OBJECTID":17,"big_id":9007199270741041,"small_int":null,"name":"Quote \"16\"","category":"back\\slash","kind":"a","note0":null,"note1":"x\"y","note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":"x\"y","ratio":null,"height":null,"count":563454425225,"created":"2011-08-16T06:36:00.016Z","updated":null,"flag":0,"code":"A1","empty":" ","street":"High Street","zip":"10016","url":null}},{"type":"Feature","id":18,"geometry":{"type":"Point","coordinates":[-3.71,41.53]},"properties":{"OBJECTID":18,"big_id":9007199271741044,"small_int":-5,"name":"ctl\u000117","category":null,"kind":"b","note0":"x\"y","note1":null,"note2":"same","note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":123456789.125,"height":430.741,"count":null,"created":"2012-09-17T07:37:00.017Z","updated":"2023-09-27T12:00:00.000Z","flag":0,"code":"C3","empty":" ","street":"Rue de l'Église","zip":"10017","url":null}},{"type":"Feature","id":19,"geometry":{"type":"Point","coordinates":[-3.34,42.04]},"properties":{"OBJECTID":19,"big_id":9007199272741047,"small_int":null,"name":"slash\\18/x","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":null,"note4":"x\"y","note5":null,"note6":"x\"y","note7":null,"ratio":1.5,"height":null,"count":null,"created":"2013-01-18T08:38:00.018Z","updated":null,"flag":1,"code":"C3","empty":"","street":"Main St","zip":"10018","url":null}},{"type":"Feature","id":20,"geometry":{"type":"Point","coordinates":[-2.97,42.55]},"properties":{"OBJECTID":20,"big_id":9007199273741050,"small_int":0,"name":"Place 19","category":"a \"quoted\" kind","kind":null,"note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":"ü","ratio":0.30000000000000004,"height":494.191,"count":null,"created":"2014-02-19T09:39:00.019Z","updated":"2023-02-29T12:00:00.000Z","flag":null,"code":"A1","empty":" ","street":"High Street","zip":"10019","url":"https://example.org/19?q=\"x\"&a=b"}},{"type":"Feature","id":21,"geometry":{"type":"Point","coordinates":[-2.6,43.06]},"properties":{"OBJECTID":21,"big_id":9007199274741053,"small_int":null,"name":null,"category":null,"kind":"b","note0":null,"note1":null,"note2":null,"note3":"ü","note4":"n4-20","note5":null,"note6":null,"note7":null,"ratio":1e+21,"height":null,"count":null,"created":"2015-03-10T00:30:00.020Z","updated":null,"flag":1,"code":"C3","empty":"","street":null,"zip":"10020","url":null}},{"type":"Feature","id":22,"geometry":{"type":"Point","coordinates":[-2.23,40]},"properties":{"OBJECTID":22,"big_id":9007199275741056,"small_int":null,"name":"ctl\u000121","category":"a \"quoted\" kind","kind":"b","note0":null,"note1":null,"note2":null,"note3":"n3-21","note4":null,"note5":null,"note6":"same","note7":null,"ratio":1.5,"height":null,"count":333688408049,"created":"2016-04-11T01:31:00.021Z","updated":"2023-04-21T12:00:00.000Z","flag":null,"code":"A1","empty":null,"street":null,"zip":"10021","url":"https://example.org/21?q=\"x\"&a=b"}},{"type":"Feature","id":23,"geometry":{"type":"Point","coordinates":[-1.86,40.51]},"properties":{"OBJECTID":23,"big_id":9007199276741059,"small_int":null,"name":"Line\nbreak 22","category":null,"kind":null,"note0":null,"note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1e+21,"height":null,"count":null,"created":"2017-05-12T02:32:00.022Z","updated":"2023-05-22T12:00:00.000Z","flag":0,"code":"B2","empty":null,"street":"Main St","zip":"10022","url":"https://example.org/22?q=\"x\"&a=b"}},{"type":"Feature","id":24,"geometry":{"type":"Point","coordinates":[-1.49,41.02]},"properties":{"OBJECTID":24,"big_id":9007199277741062,"small_int":null,"name":"Place 23","category":"a \"quoted\" kind","kind":"c","note0":"same","note1":null,"note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":"ü","ratio":null,"height":null,"count":496848637705,"created":"2018-06-13T03:33:00.023Z","updated":null,"flag":1,"code":"A1","empty":null,"street":"Rue de l'Église","zip":"10023","url":null}},{"type":"Feature","id":25,"geometry":{"type":"Point","coordinates":[-1.12,41.53]},"properties":{"OBJECTID":25,"big_id":9007199278741065,"small_int":0,"name":null,"category":"back\\slash","kind":"c","note0":"n0-24","note1":"same","note2":"x\"y","note3":null,"note4":null,"note5":null,"note6":"n6-24","note7":null,"ratio":1e+21,"height":854.255,"count":null,"created":"2019-07-14T04:34:00.024Z","updated":null,"flag":1,"code":"B2","empty":" ","street":"Main St","zip":null,"url":null}},{"type":"Feature","id":26,"geometry":{"type":"Point","coordinates":[-0.75,42.04]},"properties":{"OBJECTID":26,"big_id":9007199279741068,"small_int":42,"name":"東京 25","category":"a \"quoted\" kind","kind":"c","note0":"ü","note1":"ü","note2":"same","note3":"n3-25","note4":"ü","note5":null,"note6":"x\"y","note7":null,"ratio":-2.0,"height":null,"count":null,"created":"2020-08-15T05:35:00.025Z","updated":null,"flag":0,"code":"B2","empty":" ","street":"Rue de l'Église","zip":"10025","url":null}},{"type":"Feature","id":27,"geometry":{"type":"Point","coordinates":[-0.38,42.55]},"properties":{"OBJECTID":27,"big_id":9007199280741071,"small_int":-5,"name":"emoji 😀 26","category":"park","kind":"b","note0":null,"note1":null,"note2":null,"note3":"same","note4":null,"note5":null,"note6":"ü","note7":null,"ratio":1.5,"height":null,"count":null,"created":"2021-09-16T06:36:00.026Z","updated":"2023-09-26T12:00:00.000Z","flag":0,"code":"A1","empty":null,"street":"Rue de l'Église","zip":"10026","url":null}},{"type":"Feature","id":28,"geometry":{"type":"Point","coordinates":[-0.01,43.06]},"properties":{"OBJECTID":28,"big_id":9007199281741074,"small_int":null,"name":"emoji 😀 27","category":"tab\there","kind":null,"note0":"same","note1":null,"note2":null,"note3":null,"note4":null,"note5":"same","note6":null,"note7":null,"ratio":1.5,"height":null,"count":439738340088,"created":"2022-01-17T07:37:00.027Z","updated":"2023-01-27T12:00:00.000Z","flag":0,"code":"B2","empty":"","street":"Main St","zip":null,"url":null}},{"type":"Feature","id":29,"geometry":{"type":"Point","coordinates":[0.36,40]},"properties":{"OBJECTID":29,"big_id":9007199282741077,"small_int":-5,"name":"slash\\28/x","category":"park","kind":"a","note0":null,"note1":"ü","note2":"same","note3":"same","note4":null,"note5":null,"note6":null,"note7":"ü","ratio":null,"height":39.546,"count":623769167802,"created":"2023-02-18T08:38:00.028Z","updated":"2023-02-28T12:00:00.000Z","flag":1,"code":"C3","empty":null,"street":"Main St","zip":"10028","url":null}},{"type":"Feature","id":30,"geometry":{"type":"Point","coordinates":[0.73,40.51]},"properties":{"OBJECTID":30,"big_id":9007199283741080,"small_int":-5,"name":"Place 29","category":"park","kind":"a","note0":null,"note1":"same","note2":null,"note3":null,"note4":null,"note5":null,"note6":null,"note7":null,"ratio":0.30000000000000004,"height":883.774,"count":null,"created":"2024-03-19T09:39:00.029Z","updated":null,"flag":null,"code":"A1","empty":null,"street":"Rue de l'Église","zip":null,"url":null}}]}
"""####),
        ("/arcgis/rest/services/wide25/FeatureServer/0/query?where=1%3D1&geometry=100%2C80%2C101%2C81&geometryType=esriGeometryEnvelope&inSR=4326&spatialRel=esriSpatialRelIntersects&outFields=*&f=json",
         ####"""
{"objectIdFieldName":"OBJECTID","geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","nullable":false,"editable":false},{"name":"big_id","type":"esriFieldTypeBigInteger","alias":"big_id","nullable":true,"editable":true},{"name":"small_int","type":"esriFieldTypeInteger","alias":"small_int","nullable":true,"editable":true},{"name":"name","type":"esriFieldTypeString","alias":"name","nullable":true,"editable":true},{"name":"category","type":"esriFieldTypeString","alias":"category","nullable":true,"editable":true},{"name":"kind","type":"esriFieldTypeString","alias":"kind","nullable":true,"editable":true},{"name":"note0","type":"esriFieldTypeString","alias":"note0","nullable":true,"editable":true},{"name":"note1","type":"esriFieldTypeString","alias":"note1","nullable":true,"editable":true},{"name":"note2","type":"esriFieldTypeString","alias":"note2","nullable":true,"editable":true},{"name":"note3","type":"esriFieldTypeString","alias":"note3","nullable":true,"editable":true},{"name":"note4","type":"esriFieldTypeString","alias":"note4","nullable":true,"editable":true},{"name":"note5","type":"esriFieldTypeString","alias":"note5","nullable":true,"editable":true},{"name":"note6","type":"esriFieldTypeString","alias":"note6","nullable":true,"editable":true},{"name":"note7","type":"esriFieldTypeString","alias":"note7","nullable":true,"editable":true},{"name":"ratio","type":"esriFieldTypeDouble","alias":"ratio","nullable":true,"editable":true},{"name":"height","type":"esriFieldTypeDouble","alias":"height","nullable":true,"editable":true},{"name":"count","type":"esriFieldTypeBigInteger","alias":"count","nullable":true,"editable":true},{"name":"created","type":"esriFieldTypeDate","alias":"created","nullable":true,"editable":true},{"name":"updated","type":"esriFieldTypeString","alias":"updated","nullable":true,"editable":true},{"name":"flag","type":"esriFieldTypeInteger","alias":"flag","nullable":true,"editable":true},{"name":"code","type":"esriFieldTypeString","alias":"code","nullable":true,"editable":true},{"name":"empty","type":"esriFieldTypeString","alias":"empty","nullable":true,"editable":true},{"name":"street","type":"esriFieldTypeString","alias":"street","nullable":true,"editable":true},{"name":"zip","type":"esriFieldTypeString","alias":"zip","nullable":true,"editable":true},{"name":"url","type":"esriFieldTypeString","alias":"url","nullable":true,"editable":true}],"features":[]}
"""####),
        ("/arcgis/rest/services/wide25/FeatureServer/0/query?where=1%3D1&outFields=name%2Ccategory%2Ccreated&resultRecordCount=10&f=json",
         ####"""
{"objectIdFieldName":"OBJECTID","geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","nullable":false,"editable":false},{"name":"name","type":"esriFieldTypeString","alias":"name","nullable":true,"editable":true},{"name":"category","type":"esriFieldTypeString","alias":"category","nullable":true,"editable":true},{"name":"created","type":"esriFieldTypeDate","alias":"created","nullable":true,"editable":true}],"features":[{"attributes":{"OBJECTID":1,"name":"Quote \"0\"","category":"tab\there","created":1263083400000},"geometry":{"x":-10,"y":40}},{"attributes":{"OBJECTID":2,"name":null,"category":"Zürich","created":1297387860001},"geometry":{"x":-9.63,"y":40.51}},{"attributes":{"OBJECTID":3,"name":"ctl\u00012","category":"a \"quoted\" kind","created":1331519520002},"geometry":{"x":-9.26,"y":41.02}},{"attributes":{"OBJECTID":4,"name":"slash\\3/x","category":"park","created":1365823980003},"geometry":{"x":-8.89,"y":41.53}},{"attributes":{"OBJECTID":5,"name":"slash\\4/x","category":"park","created":1400042040004},"geometry":{"x":-8.52,"y":42.04}},{"attributes":{"OBJECTID":6,"name":"東京 5","category":"Zürich","created":1434346500005},"geometry":{"x":-8.15,"y":42.55}},{"attributes":{"OBJECTID":7,"name":null,"category":"park","created":1468650960006},"geometry":{"x":-7.78,"y":43.06}},{"attributes":{"OBJECTID":8,"name":"東京 7","category":"a \"quoted\" kind","created":1502955420007},"geometry":{"x":-7.41,"y":40}},{"attributes":{"OBJECTID":9,"name":"ctl\u00018","category":"tab\there","created":1537259880008},"geometry":{"x":-7.04,"y":40.51}},{"attributes":{"OBJECTID":10,"name":"Line\nbreak 9","category":"tab\there","created":1547890740009},"geometry":{"x":-6.67,"y":41.02}}],"exceededTransferLimit":true}
"""####),
    ]
}
